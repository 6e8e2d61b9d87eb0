# The case files are sources for gradlint to read, not tests: some are named like
# unit tests (a shape they stand for) and would otherwise be collected and run.
collect_ignore_glob = ["*/*.py"]
