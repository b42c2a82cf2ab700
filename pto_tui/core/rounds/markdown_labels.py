"""The words people and agents label the workflow's Markdown with, in English and Chinese
(docs/formats.md §13): a notes.md section's heading and its bullets' labels, and the round
table's column names, each mapped to the one field pto-tui records it in.

A label matches when it is one of a field's words, or starts with one (so "Pre-Edit（改代码前
填写）" is Pre-Edit and "首次有效结果路径" is the first valid result); the first field of the
list whose words match wins, so the longer, more specific words come first.
"""

from __future__ import annotations

import re

# notes.md sections: canonical name -> the headings that mean it
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Pre-Edit", ("pre-edit", "pre edit", "preedit", "改代码前", "修改前", "改前")),
    ("Post-Run", ("post-run", "post run", "postrun", "运行后", "跑完", "测试结果")),
    ("Environment", ("environment", "环境打通", "环境")),
    ("Changes", ("changes", "change", "修改", "变更", "改动")),
    ("Analysis", ("analysis", "分析")),
    ("Next", ("next", "下一步", "下一轮", "后续")),
)

# the bullets of each section: field -> its labels
LABELS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "Pre-Edit": (
        ("correctness_plan", ("correctness plan", "how correctness is assured", "如何保证正确性",
                              "正确性保证", "正确性方案", "correctness", "正确性")),
        ("why_ascend", ("why it should help on ascend", "why it helps on ascend", "why ascend",
                        "为什么在昇腾上有效", "为什么能在 ascend 上有效", "为什么有效", "why")),
        ("expected_metric", ("expected improved metric", "expected metric", "预期改善指标",
                             "预期改善的指标", "预期指标", "metric")),
        ("bottleneck", ("current bottleneck", "bottleneck class", "bottleneck", "当前瓶颈", "瓶颈分类",
                        "瓶颈")),
        ("kernel", ("kernel", "内核", "算子")),
        ("evidence", ("evidence", "证据")),
        ("hypothesis", ("hypothesis", "假设")),
        ("main_risk", ("main risk", "主要风险", "风险", "risk")),
    ),
    "Changes": (
        ("snapshot", ("本轮完整参数快照", "完整参数快照", "参数快照", "full parameter snapshot",
                      "parameter snapshot", "snapshot")),
        ("kind", ("修改类型", "变更类型", "change kind", "kind of change", "kind", "类型")),
        ("files", ("修改的文件", "修改文件", "files changed", "changed files", "files", "文件")),
        ("based_on", ("基于哪一轮", "基于", "based on")),
        ("description", ("具体变更", "具体修改", "concrete changes", "what changed", "changes", "变更")),
    ),
    "Post-Run": (
        ("correctness", ("correctness", "正确性")),
        ("performance", ("performance", "性能")),
        ("stability", ("stability", "稳定性")),
        ("result", ("result", "verdict", "结果", "结论")),
    ),
    "Environment": (
        ("versions", ("远程环境版本信息", "环境版本", "versions", "version", "版本")),
        ("build_outcome", ("构建是否成功", "构建结果", "build outcome", "build", "构建")),
        ("first_valid_result", ("首次有效结果路径", "首次有效结果", "first valid result path",
                                "first valid result", "first result")),
        ("problems", ("主要坑点", "坑点", "problems met", "problems", "问题")),
    ),
}

# the round table's columns: field -> the header words
COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("iter", ("iter", "iteration", "round", "轮次", "迭代", "轮")),
    ("hypothesis", ("hypothesis", "假设")),
    ("changes", ("changes", "change", "修改", "变更", "改动")),
    ("baseline", ("baseline", "基线", "torch_npu", "torch")),
    ("pto", ("pto", "duration", "耗时", "性能")),
    ("correct", ("correct", "correctness", "正确性", "正确")),
    ("result", ("result", "verdict", "结果", "结论")),
)

_DECORATION = re.compile(r"[*`_]+")
_BRACKETED = re.compile(r"[（(][^）)]*[）)]")


def normal(label: str) -> str:
    """A label as compared: no bold or code marks, no bracketed aside, no trailing colon,
    lower case, single spaces."""
    text = _BRACKETED.sub("", _DECORATION.sub("", label))
    return " ".join(text.strip().rstrip(":：").strip().lower().split())


def _match(label: str, choices: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    text = normal(label)
    if not text:
        return None
    for key, words in choices:
        if text in words:
            return key
    for key, words in choices:
        if any(text.startswith(word) for word in words):
            return key
    return None


def section_of(heading: str) -> str | None:
    """The canonical section a notes.md heading names, None for another heading."""
    return _match(heading, SECTIONS)


def field_of(section: str, label: str) -> str | None:
    """The field a bullet's label names in `section`, None for a label pto-tui has no field for."""
    return _match(label, LABELS.get(section, ()))


def column_of(header: str) -> str | None:
    """The round table's column a header cell names."""
    return _match(header, COLUMNS)
