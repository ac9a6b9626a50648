"""Where the appliance meets engines/: which model serves and through which engine."""
