"""``gradlint guard``: a pytest plugin that watches autograd while a project's own tests run.

Enabled with ``pytest --gradlint-guard`` (or a ``[tool.gradlint.guard]`` table in
``pyproject.toml``), it reports the run-time twins of the static rules GL101
(a graph built and never used), GL301 (graphs kept alive step after step),
GL201/GL202 (a tensor saved for backward edited through ``.detach()`` or
``.data``) and GL105 (gradients left disabled by a test). See docs/guard.md.

Only :mod:`gradlint.guard.monitor` (with the modules it imports: ``frames``,
``kept``) imports torch, and only once the guard is enabled: pytest loads
:mod:`gradlint.guard.plugin` in every session.
"""
