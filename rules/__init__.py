"""The gradlint rule catalog: one TOML file per rule (see README.md here).

This folder is installed as the data package ``gradlint._catalog`` so that the
catalog is readable from a wheel as well as from a checkout.
"""
