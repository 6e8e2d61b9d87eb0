"""Accounting of benchmarks/judged/score.py, on synthetic labels and findings (no corpus)."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("judged_score", ROOT / "benchmarks" / "judged" / "score.py")
score_mod = importlib.util.module_from_spec(_spec)
# dataclasses look their module up in sys.modules while the class is built.
sys.modules[_spec.name] = score_mod
_spec.loader.exec_module(score_mod)

Finding, Label, LabelFile = score_mod.Finding, score_mod.Label, score_mod.LabelFile

ERA = {("newlib", "2.0"): "modern", ("oldlib", "0.3"): "legacy"}


def f(package, version, path, line, code):
    return Finding((package, version, path, line, code), "message")


def lab(package, version, path, line, code, verdict, reason="why"):
    return Label((package, version, path, line, code), verdict, reason)


def test_label_file_round_trip_keeps_seed_sample_and_order(tmp_path):
    lf = LabelFile(code="GL999", seed=7, sample=5, header=["# GL999: test", "# seed: 7", "# sample: 5"])
    lf.labels = [lab("b", "1", "z.py", 3, "GL999", "FP", "FP: a float"), lab("a", "1", "y.py", 10, "GL999", "TP", "real")]
    path = tmp_path / "GL999.tsv"
    score_mod.write_labels(path, lf)
    assert path.read_text().splitlines() == [
        "# GL999: test",
        "# seed: 7",
        "# sample: 5",
        "package\tversion\tpath\tline\tcode\tverdict\treason",
        "a\t1\ty.py\t10\tGL999\tTP\treal",
        "b\t1\tz.py\t3\tGL999\tFP\tFP: a float",
    ]
    back = score_mod.read_labels(path)
    assert (back.code, back.seed, back.sample) == ("GL999", 7, 5)
    assert [(x.key, x.verdict, x.reason) for x in back.labels] == [
        (("a", "1", "y.py", 10, "GL999"), "TP", "real"),
        (("b", "1", "z.py", 3, "GL999"), "FP", "FP: a float"),
    ]


def test_unknown_verdict_and_short_line_are_rejected(tmp_path):
    bad = tmp_path / "GL999.tsv"
    bad.write_text("a\t1\ty.py\t10\tGL999\tmaybe\treason\n")
    with pytest.raises(ValueError, match="verdict 'maybe'"):
        score_mod.read_labels(bad)
    bad.write_text("a\t1\ty.py\t10\tGL999\tTP\n")
    with pytest.raises(ValueError, match="expected 7 tab-separated columns, got 6"):
        score_mod.read_labels(bad)


def test_sample_is_all_when_small_and_seeded_when_large():
    keys = [("p", "1", f"f{i}.py", i, "GL1") for i in range(50)]
    assert score_mod.sample_keys(keys[:4], 30, 15) == sorted(keys[:4])
    one = score_mod.sample_keys(keys, 30, 15)
    assert len(one) == 30 and len(set(one)) == 30
    # The sample depends on the set of findings and the seed, not on their order.
    assert score_mod.sample_keys(list(reversed(keys)), 30, 15) == one
    assert score_mod.sample_keys(keys, 30, 16) != one


def test_parse_findings_splits_code_base_and_path():
    items = [{"filename": "./newlib-2.0/newlib/a/b.py", "location": {"row": 12, "column": 5}, "code": "GL301", "message": "m"}]
    (got,) = score_mod.parse_findings(items, {"newlib-2.0": ("newlib", "2.0")})
    assert got.key == ("newlib", "2.0", "newlib/a/b.py", 12, "GL301")


def test_library_paths_leave_out_tests_examples_and_scripts():
    assert score_mod.is_library_path("newlib/models/net.py")
    for rel in ("newlib/tests/x.py", "tests/x.py", "newlib/test_x.py", "newlib/x_test.py", "examples/train.py", "pkg/scripts/run.py", "conftest.py"):
        assert not score_mod.is_library_path(rel), rel


def _fixture():
    findings = [
        f("newlib", "2.0", "newlib/a.py", 1, "GL301"),  # TP
        f("newlib", "2.0", "newlib/a.py", 2, "GL301"),  # FP
        f("newlib", "2.0", "newlib/tests/test_a.py", 3, "GL301"),  # debatable, a test file
        f("newlib", "2.0", "newlib/b.py", 4, "GL301"),  # not judged
        f("oldlib", "0.3", "oldlib/c.py", 5, "GL003"),  # TP
        f("oldlib", "0.3", "oldlib/c.py", 6, "GL203"),  # TP, an off-by-default rule
        f("oldlib", "0.3", "oldlib/c.py", 7, "GL203"),  # FP
    ]
    labels = {
        "GL301": LabelFile("GL301", labels=[
            lab("newlib", "2.0", "newlib/a.py", 1, "GL301", "TP"),
            lab("newlib", "2.0", "newlib/a.py", 2, "GL301", "FP"),
            lab("newlib", "2.0", "newlib/tests/test_a.py", 3, "GL301", "debatable"),
            lab("newlib", "2.0", "newlib/gone.py", 9, "GL301", "TP", "was real"),  # no longer reported
            lab("newlib", "2.0", "newlib/fixed.py", 8, "GL301", "FP"),  # no longer reported
        ]),
        "GL003": LabelFile("GL003", labels=[lab("oldlib", "0.3", "oldlib/c.py", 5, "GL003", "TP")]),
        "GL203": LabelFile("GL203", labels=[
            lab("oldlib", "0.3", "oldlib/c.py", 6, "GL203", "TP"),
            lab("oldlib", "0.3", "oldlib/c.py", 7, "GL203", "FP"),
        ]),
    }
    return findings, labels


def test_precision_counts_debatable_as_false_per_rule_era_and_group():
    findings, labels = _fixture()
    r = score_mod.score(findings, labels, ERA, ["GL003", "GL301"], library_files=100)
    gl301 = r.per_rule["GL301"]
    assert (gl301.findings, gl301.judged, gl301.tp, gl301.fp, gl301.debatable) == (4, 3, 1, 1, 1)
    assert gl301.precision == pytest.approx(1 / 3)
    assert r.per_rule["GL003"].precision == 1.0
    assert r.per_rule["GL203"].precision == 0.5
    assert r.per_rule_era[("GL301", "modern")].judged == 3
    assert ("GL301", "legacy") not in r.per_rule_era
    assert r.per_codebase["oldlib 0.3"].precision == pytest.approx(2 / 3)
    assert r.per_codebase_default["oldlib 0.3"].precision == 1.0
    assert (r.groups["modern, default rules"].tp, r.groups["modern, default rules"].judged) == (1, 3)
    assert (r.groups["legacy, default rules"].tp, r.groups["legacy, default rules"].judged) == (1, 1)
    assert (r.groups["legacy, all rules"].tp, r.groups["legacy, all rules"].judged) == (2, 3)
    assert (r.groups["all, default rules"].tp, r.groups["all, default rules"].judged) == (2, 4)
    assert (r.groups["all, all rules"].tp, r.groups["all, all rules"].judged) == (3, 6)
    # Weighted: GL301's 1/3 over its 4 findings, GL003's 1/1 over 1 finding.
    assert r.estimated["all, default rules"] == pytest.approx((4 / 3 + 1) / 5)


def test_rate_per_50_files_counts_default_rules_on_modern_library_code_only():
    findings, labels = _fixture()
    r = score_mod.score(findings, labels, ERA, ["GL003", "GL301"], library_files=100)
    # Three GL301 findings are in library files of the modern code base (the test file is left out);
    # GL003's finding is in legacy code.
    assert r.rate_per_50 == {"GL003": 0.0, "GL301": pytest.approx(1.5)}
    assert r.library_files == 100


def test_unjudged_recall_loss_and_fixed_findings_are_listed():
    findings, labels = _fixture()
    r = score_mod.score(findings, labels, ERA, ["GL003", "GL301"], library_files=100)
    assert [x.key for x in r.unjudged] == [("newlib", "2.0", "newlib/b.py", 4, "GL301")]
    assert [x.key for x in r.recall_lost] == [("newlib", "2.0", "newlib/gone.py", 9, "GL301")]
    assert [x.key for x in r.fixed] == [("newlib", "2.0", "newlib/fixed.py", 8, "GL301")]
    text = score_mod.render(r, ["GL003", "GL301"], {"GL301": 30})
    assert "GL301: 1 not judged; its sample needs 1 more:" in text
    assert "    GL301 newlib 2.0 newlib/b.py:4" in text
    assert "judged TP no longer reported (recall lost): 1" in text
    assert "  GL301 newlib 2.0 newlib/gone.py:9  (was real)" in text
    assert "  GL301: 1.50  (above 1 per 50 files and below 90% precision)" in text


def test_stub_labels_count_as_not_judged():
    findings, labels = _fixture()
    labels["GL003"].labels[0].verdict = "?"
    r = score_mod.score(findings, labels, ERA, ["GL003", "GL301"], library_files=100)
    assert r.per_rule["GL003"].judged == 0 and r.per_rule["GL003"].precision is None
    assert ("oldlib", "0.3", "oldlib/c.py", 5, "GL003") in [x.key for x in r.unjudged]


def test_emit_stubs_fills_the_sample_up_to_its_size(tmp_path):
    findings = [f("newlib", "2.0", "newlib/m.py", i, "GL301") for i in range(1, 11)]
    judged = lab("newlib", "2.0", "newlib/m.py", 1, "GL301", "TP", "kept")
    stale = lab("newlib", "2.0", "newlib/old.py", 99, "GL301", "FP", "no longer reported")
    labels = {"GL301": LabelFile("GL301", seed=3, sample=4, labels=[judged, stale])}
    added = score_mod.emit_stubs(findings, labels, tmp_path)
    # Four in the sample: the one judged finding still reported plus three stubs; the stale label stays.
    assert added == {"GL301": 3}
    back = score_mod.read_labels(tmp_path / "GL301.tsv")
    verdicts = sorted(x.verdict for x in back.labels)
    assert verdicts == ["?", "?", "?", "FP", "TP"]
    assert (back.seed, back.sample) == (3, 4)
    # Running it again adds nothing: the sample is full.
    assert score_mod.emit_stubs(findings, {"GL301": back}, tmp_path) == {}
    # A rule without a label file gets one with the default seed and sample size.
    more = score_mod.emit_stubs([f("oldlib", "0.3", "oldlib/x.py", 2, "GL001")], {}, tmp_path)
    assert more == {"GL001": 1}
    new = score_mod.read_labels(tmp_path / "GL001.tsv")
    assert (new.seed, new.sample, [x.verdict for x in new.labels]) == (score_mod.DEFAULT_SEED, score_mod.SAMPLE_SIZE, ["?"])


def test_wilson_interval_is_wide_on_small_samples():
    lo, hi = score_mod.wilson(30, 30)
    assert hi == 1.0 and round(lo, 3) == 0.886
    lo, hi = score_mod.wilson(0, 30)
    assert lo == 0.0 and round(hi, 3) == 0.114
    assert score_mod.wilson(0, 0) == (0.0, 1.0)


def test_every_corpus_code_base_is_marked_modern_or_legacy():
    spec = importlib.util.spec_from_file_location("benchmark_run", ROOT / "benchmarks" / "run.py")
    run = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = run
    spec.loader.exec_module(run)
    names = [f"{name}-{version}" for name, version, _, _ in run.CORPUS]
    assert len(set(names)) == len(names)
    assert sorted(run.ERA) == sorted(names)
    assert set(run.ERA.values()) == {"modern", "legacy"}
    # Every release is pinned to the bytes PyPI serves.
    assert all(len(digest) == 64 and int(digest, 16) >= 0 for _, _, digest, _ in run.CORPUS)


def test_markdown_tables_bold_the_default_rules_that_miss_the_targets():
    findings, labels = _fixture()
    r = score_mod.score(findings, labels, ERA, ["GL003", "GL301"], library_files=100)
    text = score_mod.render_markdown(r, ["GL003", "GL301"], {"newlib 2.0": "modern", "oldlib 0.3": "legacy"}, {"GL301": "graph-kept-alive"})
    lines = text.splitlines()
    assert "| GL301 graph-kept-alive | yes | 4 | 3 | 1 | 1 | 1 | **33%** | 6–79% | 1 of 3 | – | **1.50** |" in lines
    assert "| GL003 | yes | 1 | 1 | 1 | 0 | 0 | 100% | 21–100% | – | 1 of 1 | 0 |" in lines
    # An off-by-default rule is neither bolded nor rated.
    assert "| GL203 | no | 2 | 2 | 1 | 1 | 0 | 50% | 9–91% | – | 1 of 2 | – |" in lines
    assert "| newlib 2.0 | modern | 4 | 3 | 1 | 33% | 4 | 3 | 1 | 33% |" in lines
    assert "| legacy, default rules | 1 | 1 | 1 | 100% | 100% |" in lines
