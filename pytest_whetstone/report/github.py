"""`--format github`: GitHub Actions workflow commands that become annotations.

``::error file=F,line=L,col=C,title=T::message`` for errors and real test
failures, ``::warning`` for warnings and lint, ``::notice`` for flaky tests.
Everything in a command is untrusted text, so it is escaped the way the
Actions runner unescapes it: ``%`` ``\\r`` ``\\n`` in the message, and also
``:`` and ``,`` in properties.  After escaping, no line we print can hold a
newline, so no message can start a workflow command of its own.
"""

from __future__ import annotations

from ..records import BuildErrorRecord, TestFailureRecord
from .common import expected_actual, failure_title
from .model import ReportModel

MAX_MESSAGE = 4000


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(kind: str, message: str, **props: str | int) -> str:
    fields = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in props.items() if value not in ("", 0, None)
    )
    head = f"::{kind} {fields}" if fields else f"::{kind}"
    return f"{head}::{escape_data(message[:MAX_MESSAGE])}"


def _error_command(e: BuildErrorRecord) -> str | None:
    if e.severity == "note":
        return None
    kind = "error" if e.is_failure else "warning"
    title = f"{e.error_type}" + (f" [{e.error_code}]" if e.error_code else "")
    return command(kind, e.message, file=e.file_path, line=e.line, col=e.col, title=title)


def _failure_command(f: TestFailureRecord) -> str:
    kind = "notice" if f.flaky else "error"
    label = "flaky test" if f.flaky else f"test failure ({f.failure_type})"
    body = f.message
    ea = expected_actual(f, 400)
    if ea and ea not in body:
        body = f"{ea}\n{body}" if body else ea
    if f.suspects:
        top = f.suspects[0]
        body += f"\nsuspect: {top.file_path}:{top.line_start} {top.qualname}"
    return command(kind, body, file=f.file_path, line=f.line, title=f"{label}: {failure_title(f)}")


def _n(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def render(model: ReportModel) -> str:
    lines: list[str] = []
    # Failing errors and real failures first: GitHub shows a limited number per step.
    for e in model.build_errors:
        cmd = _error_command(e)
        if cmd:
            lines.append(cmd)
    for f in sorted(model.test_failures, key=lambda f: f.flaky):
        lines.append(_failure_command(f))
    c = model.counts
    summary = (
        f"whetstone: {model.status}"
        + (f" ({model.failure})" if model.failure else "")
        + f", {_n(c['errors'], 'error')}, {_n(c['test_failures'], 'test failure')}"
        + f", {_n(c['candidates'], 'candidate')}"
    )
    lines.append(command("notice", summary, title="whetstone report"))
    return "\n".join(lines) + "\n"
