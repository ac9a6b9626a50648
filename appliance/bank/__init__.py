"""The question bank: bank files, the knowledge base, the teacher's bank editor."""
