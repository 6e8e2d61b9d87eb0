"""Errors about reading and writing documents, shared by ``files`` and
``notebook`` (a leaf module, so that neither needs to import the other to
raise them: ``files`` reads notebooks through ``notebook``, never the reverse)."""


class ReadError(Exception):
    """A file that cannot be read or decoded; the message is one line."""


class WriteError(Exception):
    """A fix that was not written; the file is left as it was."""
