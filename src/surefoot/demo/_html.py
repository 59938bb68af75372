"""The ``--html`` report: one self-contained page (inline CSS and SVG, no script, no external
resource) with the verdict, the totals, the timeline chart and its legend, the summary table
with every step's expectations, and each step's attempts."""

from __future__ import annotations

from html import escape
from pathlib import Path

from surefoot._redact import redact
from surefoot.demo._records import AttemptRow, DemoResult, Mark, StepResult
from surefoot.demo._svg import COLORS, LEGEND, timeline_svg

__all__ = ["render_html", "write_html"]

_CSS = """
*{box-sizing:border-box}
body{margin:0;background:#f1f3f5;color:#212529;
font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
main{max-width:1220px;margin:0 auto;padding:24px 20px 40px}
h1{font-size:24px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 10px}
.meta{color:#495057;margin:0 0 16px}
.verdict{display:inline-block;font-weight:800;font-size:16px;color:#fff;border-radius:6px;
padding:4px 12px;margin-right:10px;vertical-align:middle}
.pass{background:#2f9e44}.fail{background:#e03131}.skip{background:#868e96}
.cards{display:flex;gap:12px;flex-wrap:wrap;margin:14px 0 8px}
.card{background:#fff;border-radius:8px;padding:10px 16px;min-width:140px;
box-shadow:0 1px 2px rgba(0,0,0,.08)}
.card b{display:block;font-size:24px;line-height:1.2}
.card span{color:#495057;font-size:12.5px}
.panel{background:#fff;border-radius:8px;padding:14px 16px;
box-shadow:0 1px 2px rgba(0,0,0,.08);overflow-x:auto}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:0 0 12px;font-size:12.5px;color:#343a40}
.legend i{display:inline-block;width:16px;height:12px;border-radius:3px;margin-right:6px;
vertical-align:-1px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e9ecef;vertical-align:top}
th{font-size:11.5px;text-transform:uppercase;letter-spacing:.03em;color:#868e96}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tfoot td{font-weight:700;border-top:2px solid #dee2e6}
.status{font-weight:700}
.s-passed{color:#2f9e44}.s-failed{color:#e03131}.s-skipped{color:#868e96}
ul.checks{margin:0;padding:0;list-style:none}
ul.checks li{margin:0 0 2px}
.ok{color:#2f9e44;font-weight:700}.ko{color:#e03131;font-weight:700}
.obs{color:#868e96}
details{margin:8px 0}
summary{cursor:pointer;font-weight:600}
.chip{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-size:12px;
font-weight:600}
table.attempts{table-layout:fixed}
table.attempts td{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
tr.mark td{color:#495057;font-size:12.5px;border-bottom:1px dashed #e9ecef}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
"""


def _chip(outcome: str) -> str:
    color = COLORS.get(outcome, "#495057")
    return f'<span class="chip" style="background:{color}">{escape(outcome)}</span>'


def _legend() -> str:
    items = []
    for key, label in LEGEND:
        color = COLORS[key]
        if key == "rejected":
            style = f"background:#fff;border:2px dashed {color}"
        elif key == "tool":
            style = f"background:{color};clip-path:polygon(50% 0,100% 100%,0 100%);width:12px"
        elif key == "breaker":
            style = f"background:none;border-left:2px dashed {color};width:8px"
        elif key == "wait":
            style = f"background:repeating-linear-gradient(45deg,{color} 0 3px,#f8b26a 3px 5px)"
        else:
            style = f"background:{color}"
        items.append(f'<span><i style="{style}"></i>{escape(label)}</span>')
    note = (
        '<p class="obs" style="margin:0 0 10px;font-size:12.5px">One lane per step; an '
        "attempt is a box from when it was sent to when it ended; time runs from the start of "
        "each step. Hover a mark for its details.</p>"
    )
    return '<div class="legend">' + "".join(items) + "</div>" + note


def _cards(result: DemoResult) -> str:
    s = result.summary
    cards = [
        (str(s.calls), "calls"),
        (str(s.attempts), "attempts sent"),
        (str(s.retries), "retries"),
        (f"{s.waited:.2f} s", "time waited"),
        (str(s.breaker_saved), "calls the breaker saved"),
    ]
    if s.server_requests is not None:
        cards.append((str(s.server_requests), "requests the server saw"))
    cards.append((f"{result.wall_time:.1f} s", "wall time"))
    return (
        '<div class="cards">'
        + "".join(f'<div class="card"><b>{v}</b><span>{escape(k)}</span></div>' for v, k in cards)
        + "</div>"
    )


def _checks(step: StepResult) -> str:
    if step.status == "skipped":
        return f'<span class="obs">{escape(step.skip_reason)}</span>'
    items = []
    for c in step.checks:
        mark = '<span class="ok">✓</span>' if c.ok else '<span class="ko">✗</span>'
        items.append(
            f"<li>{mark} {escape(c.expect)} <span class='obs'>— {escape(c.observed)}</span></li>"
        )
    return '<ul class="checks">' + "".join(items) + "</ul>"


def _summary_table(result: DemoResult) -> str:
    rows = []
    for i, st in enumerate(result.steps, start=1):
        sent = sum(1 for a in st.attempts if a.outcome != "rejected")
        rows.append(
            f"<tr><td class='n'>{i}</td><td><b>{escape(st.title)}</b><br>"
            f"<span class='obs'>{escape(st.story)}</span></td>"
            f"<td class='status s-{st.status}'>{st.status}</td>"
            f"<td class='n'>{st.calls}</td><td class='n'>{sent}</td>"
            f"<td class='n'>{st.retries}</td><td class='n'>{st.waited:.2f} s</td>"
            f"<td class='n'>{st.rejected}</td><td>{_checks(st)}</td></tr>"
        )
    s = result.summary
    verdict = "passed" if result.passed else "failed"
    foot = (
        f"<tfoot><tr><td></td><td>total</td><td class='status s-{verdict}'>{verdict}</td>"
        f"<td class='n'>{s.calls}</td><td class='n'>{s.attempts}</td>"
        f"<td class='n'>{s.retries}</td><td class='n'>{s.waited:.2f} s</td>"
        f"<td class='n'>{s.breaker_saved}</td><td></td></tr></tfoot>"
    )
    head = (
        "<thead><tr><th>#</th><th>step</th><th>result</th><th>calls</th><th>attempts</th>"
        "<th>retries</th><th>waited</th><th>breaker saved</th><th>expectations</th></tr></thead>"
    )
    return f'<table id="summary">{head}<tbody>{"".join(rows)}</tbody>{foot}</table>'


def _attempt_row(row: AttemptRow) -> str:
    err = f"{row.status or ''} {row.code or ''}".strip() if row.error_code else "—"
    decision = f"{row.decision} · {row.reason}" if row.decision else (row.reason or "—")
    return (
        f"<tr><td class='n'>{row.t_end:.3f} s</td><td><code>{escape(row.model)}</code></td>"
        f"<td class='n'>{row.attempt + 1}</td><td>{escape(err)}</td>"
        f"<td><code>{escape(row.error_code or '—')}</code></td><td>{escape(row.kind or '—')}</td>"
        f"<td>{escape(decision)}</td><td class='n'>{row.wait:.2f} s</td>"
        f"<td>{_chip(row.outcome)}</td></tr>"
    )


def _mark_row(mark: Mark) -> str:
    icon = "⚙ tool" if mark.kind == "tool" else "⚡"
    return (
        f"<tr class='mark'><td class='n'>{mark.t:.3f} s</td>"
        f"<td colspan='8'>{icon} {escape(mark.text)}</td></tr>"
    )


_COLS = (
    "<colgroup><col style='width:8%'><col style='width:13%'><col style='width:4%'>"
    "<col style='width:19%'><col style='width:15%'><col style='width:11%'>"
    "<col style='width:16%'><col style='width:6%'><col style='width:8%'></colgroup>"
)


def _details(result: DemoResult) -> str:
    parts = []
    head = (
        "<thead><tr><th>t</th><th>model</th><th>try</th><th>error</th><th>error code</th>"
        "<th>kind</th><th>decision</th><th>wait</th><th>outcome</th></tr></thead>"
    )
    for i, st in enumerate(result.steps, start=1):
        if st.status == "skipped":
            continue
        timed = [(a.t_end, 0, _attempt_row(a)) for a in st.attempts]
        timed += [(m.t, 1, _mark_row(m)) for m in st.marks]
        rows = "".join(html for _t, _k, html in sorted(timed, key=lambda x: (x[0], x[1])))
        parts.append(
            f"<details open><summary>{i}. {escape(st.title)} — {len(st.attempts)} attempt(s)"
            f"</summary><table class='attempts'>{_COLS}{head}<tbody>{rows}</tbody></table>"
            "</details>"
        )
    return "".join(parts)


def render_html(result: DemoResult) -> str:
    """The report page of ``result`` (secrets redacted)."""
    ran = [s for s in result.steps if s.status != "skipped"]
    ok = sum(1 for s in ran if s.status == "passed")
    events = result.mode == "events"
    said = "calls succeeded" if events else "steps as expected"
    if result.passed:
        verdict = f'<span class="verdict pass">PASSED</span>{ok}/{len(ran)} {said}'
    else:
        verdict = f'<span class="verdict fail">FAILED</span>{ok}/{len(ran)} {said}'
    if events:
        title, head = "surefoot timeline", "surefoot timeline"
        meta = (
            f"{len(result.steps)} logged call(s) from <code>{escape(result.base_url)}</code> · "
            f"surefoot {escape(result.version)}"
        )
    else:
        where = "fault server" if result.mode == "fault-server" else "endpoint"
        title, head = "surefoot demo report", "surefoot demo"
        meta = (
            f"A travel agent on a bad day at the provider · {where}\n"
            f"<code>{escape(result.base_url)}</code> · {escape(result.style)} wire ·\n"
            f"surefoot {escape(result.version)}"
        )
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>{_CSS}</style></head>
<body><main>
<h1>{head}</h1>
<p class="meta">{meta}</p>
<div>{verdict}</div>
{_cards(result)}
<h2>Timeline</h2>
<div class="panel">{_legend()}{timeline_svg(result)}</div>
<h2>Summary</h2>
<div class="panel">{_summary_table(result)}</div>
<h2>Attempts</h2>
<div class="panel">{_details(result)}</div>
</main></body></html>
"""
    return redact(page)


def write_html(result: DemoResult, path: str | Path) -> Path:
    """Write the report of ``result`` to ``path`` (UTF-8); returns the path."""
    out = Path(path)
    out.write_text(render_html(result), encoding="utf-8")
    return out
