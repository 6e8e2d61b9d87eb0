"""gradlint: find and fix misuse of PyTorch's gradient modes."""

__version__ = "0.1.0"
