"""SQL for teacher accounts, ask review and the bank editor (tables in ``appliance.db.sql``).

Values always travel as parameters; the optional filters of the ask log are fixed
clauses of the form ``(:x IS NULL OR ...)``, so no statement is built from user text.
"""

# --- teachers ------------------------------------------------------------------------
TEACHER_INSERT = "INSERT INTO teachers (username, password_hash, created_at) VALUES (?, ?, ?)"
TEACHER_HASH = "SELECT password_hash FROM teachers WHERE username = ?"
TEACHER_SET_HASH = "UPDATE teachers SET password_hash = ? WHERE username = ?"
TEACHER_DELETE = "DELETE FROM teachers WHERE username = ?"
TEACHER_LIST = "SELECT username, created_at FROM teachers ORDER BY username"

# --- ask review --------------------------------------------------------------------------
REVIEW_COLUMNS = (
    "a.id, a.asked_at, a.kind, a.question, a.ocr_text, a.ocr_confidence, a.photo_sha256, "
    "a.matched_id, e.subject, a.confidence, a.abstained, a.feedback, a.review_status, "
    "a.teacher_answer, a.client"
)
ASK_FILTERED = (
    f"SELECT {REVIEW_COLUMNS} FROM asks a LEFT JOIN kb_entries e ON e.id = a.matched_id "
    "WHERE (:since IS NULL OR a.asked_at >= :since) "
    "AND (:until IS NULL OR a.asked_at < :until) "
    "AND (:subject IS NULL OR e.subject = :subject) "
    "AND (:below IS NULL OR a.confidence < :below) "
    "AND (:abstained IS NULL OR a.abstained = :abstained) "
    "AND (:feedback IS NULL OR (:feedback = 'none' AND a.feedback IS NULL) OR a.feedback = :feedback) "
    "AND (:status IS NULL OR a.review_status = :status) "
    "AND (:text IS NULL OR instr(a.question, :text) > 0 OR instr(coalesce(a.ocr_text, ''), :text) > 0) "
    "ORDER BY CASE WHEN :order = 'newest' THEN 0 ELSE a.confidence END, a.id DESC "
    "LIMIT :limit"
)
ASK_REVIEW_ONE = (
    f"SELECT {REVIEW_COLUMNS} FROM asks a LEFT JOIN kb_entries e ON e.id = a.matched_id WHERE a.id = ?"
)
ASK_SET_REVIEW = "UPDATE asks SET review_status = ?, teacher_answer = ? WHERE id = ?"
ASK_USAGE = (
    "SELECT a.asked_at, a.confidence, a.abstained, e.subject FROM asks a "
    "LEFT JOIN kb_entries e ON e.id = a.matched_id "
    "WHERE (:since IS NULL OR a.asked_at >= :since) AND (:until IS NULL OR a.asked_at < :until) "
    "ORDER BY a.asked_at"
)

# --- bank editor --------------------------------------------------------------------------
KB_SEARCH = (
    "SELECT id, subject, grade, question, answer, knowledge_points, source, origin "
    "FROM kb_entries "
    "WHERE (:subject IS NULL OR subject = :subject) "
    "AND (:text IS NULL OR instr(id, :text) > 0 OR instr(question, :text) > 0 "
    "OR instr(answer, :text) > 0 OR instr(knowledge_points, :text) > 0) "
    "ORDER BY updated_at DESC, id LIMIT :limit"
)
KB_SUBJECTS = "SELECT DISTINCT subject FROM kb_entries ORDER BY subject"
KB_DELETE_ONE = "DELETE FROM kb_entries WHERE id = ?"
