"""The timeline chart of the HTML report: one inline SVG, one lane per step.

Each lane has its own time origin (the step's start) on a scale shared by every lane, so the
lanes line up and compare at a glance. An attempt is a rounded box from when it was sent to
when it ended, coloured by outcome and labelled with its status ("429", "503", "ok"...); the
wait that follows a retry is a striped bar with its length in seconds; tool calls are small
ticks under the lane and breaker state changes dashed flags. Marks closer than a few pixels
are nudged apart so that none hides another (the exact times are in the tooltips and tables).
"""

from __future__ import annotations

import math
from html import escape

from surefoot.demo._records import AttemptRow, DemoResult, Mark, StepResult

__all__ = ["COLORS", "LEGEND", "timeline_svg"]

COLORS = {
    "ok": "#2f9e44",
    "retry": "#f08c00",
    "reconnect": "#1c7ed6",
    "restart": "#0c8599",
    "continue": "#1098ad",
    "fallback": "#9c36b5",
    "rejected": "#868e96",
    "fail": "#e03131",
    "deadline": "#c92a2a",
    "wait": "#ffd8a8",
    "tool": "#495057",
    "breaker": "#ae3ec9",
}
#: (key, label) of the legend, in order.
LEGEND = (
    ("ok", "answered"),
    ("retry", "failed, retried"),
    ("reconnect", "stream resumed"),
    ("restart", "cut stream, answer restarted"),
    ("fallback", "moved to next model"),
    ("rejected", "rejected by breaker (never sent)"),
    ("fail", "failed"),
    ("deadline", "cut by the run deadline"),
    ("wait", "wait before retry"),
    ("tool", "tool call"),
    ("breaker", "breaker state change"),
)

_W = 1180
_LABEL = 300
_RIGHT = 64
_PLOT = _W - _LABEL - _RIGHT
_TOP = 34
_LANE = 78
_BOX_H = 22
_MIN_BOX = 14
_GAP = 6


def _nice_max(seconds: float) -> float:
    for step in (0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0):
        if seconds <= step * 8:
            return max(step, math.ceil(seconds / step) * step)
    return math.ceil(seconds / 60.0) * 60.0


def _tick(span: float) -> float:
    for step in (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0):
        if span / step <= 10:
            return step
    return 120.0


def _short(row: AttemptRow) -> str:
    if row.outcome == "ok":
        return "ok"
    if row.outcome == "rejected":
        return "open"
    if row.outcome == "deadline":
        return "timeout"
    if row.status is not None and row.status != 200:
        return str(row.status)
    if row.outcome == "reconnect":  # a stream resumed after a cut, or after an error event
        return "overload" if row.kind == "model_overloaded" else "cut"
    return (row.kind or "error")[:8]


def _tip(row: AttemptRow) -> str:
    err = f"{row.status or ''} {row.code or row.error_code or ''}".strip() or "no error"
    decision = f"{row.decision} ({row.reason})" if row.decision else row.reason or "-"
    return (
        f"{row.model} attempt {row.attempt + 1}: {err}; kind {row.kind or '-'}; "
        f"decision {decision}; wait {row.wait:.2f} s; outcome {row.outcome}; "
        f"{row.t_start:.3f}-{row.t_end:.3f} s"
    )


class _Lane:
    """Draws one step's lane; ``x(t)`` maps seconds since the step's start to pixels."""

    def __init__(self, step: StepResult, top: float, scale: float) -> None:
        self.step = step
        self.top = top
        self.mid = top + _LANE / 2 + 2
        self.scale = scale
        self.out: list[str] = []

    def x(self, t: float) -> float:
        return _LABEL + max(0.0, t - self.step.t_start) * self.scale

    def draw(self, index: int) -> list[str]:
        st = self.step
        o = self.out
        shade = "#f8f9fa" if index % 2 else "#ffffff"
        o.append(f'<rect x="0" y="{self.top}" width="{_W}" height="{_LANE}" fill="{shade}"/>')
        o.append(
            f'<line x1="{_LABEL}" y1="{self.mid}" x2="{_W - _RIGHT}" y2="{self.mid}" '
            'stroke="#dee2e6" stroke-width="1"/>'
        )
        self._label(index)
        if st.status == "skipped":
            o.append(
                f'<text x="{_LABEL + 12}" y="{self.mid + 4}" class="muted">'
                f"{escape(st.skip_reason)}</text>"
            )
            return o
        right = max(self._attempts(), self.x(st.t_end) + _GAP)
        self._marks()
        o.append(
            f'<text x="{min(right + 2, _W - _RIGHT + 6):.1f}" y="{self.mid + 4}" class="dur">'
            f"{st.duration:.2f} s</text>"
        )
        return o

    def _label(self, index: int) -> None:
        st = self.step
        color = {"passed": "#2f9e44", "failed": "#e03131", "skipped": "#868e96"}[st.status]
        y = self.top + 30
        title = escape(st.title if len(st.title) <= 36 else st.title[:35] + "…")
        self.out.append(
            f'<text x="14" y="{y}" class="lane"><tspan class="num">{index + 1}</tspan>'
            f" {title}<title>{escape(st.story)}</title></text>"
        )
        self.out.append(
            f'<rect x="32" y="{y + 10}" width="62" height="18" rx="9" fill="{color}"/>'
            f'<text x="63" y="{y + 23}" class="pill">{st.status}</text>'
        )
        if st.status != "skipped":
            facts = f"{st.calls} call{'s' * (st.calls != 1)} · {st.retries} retr"
            facts += "y" if st.retries == 1 else "ies"
            if st.rejected:
                facts += f" · {st.rejected} rejected"
            self.out.append(f'<text x="102" y="{y + 23}" class="facts">{facts}</text>')

    def _attempts(self) -> float:
        """Draw the attempts and their waits; returns the right end of the drawing."""
        floor = float(_LABEL)
        label_right = float(_LABEL) - 40
        box_y = self.mid - _BOX_H / 2
        for row in self.step.attempts:
            width = max(self.x(row.t_end) - self.x(row.t_start), _MIN_BOX)
            label = _short(row)
            inside = row.outcome == "deadline" and width > 90
            half = 0.0 if inside else len(label) * 3.7 + 2
            x0 = max(self.x(row.t_start), floor, label_right + 4 + half - width / 2)
            color = COLORS.get(row.outcome, "#495057")
            tip = escape(_tip(row))
            if row.outcome == "rejected":
                self.out.append(
                    f'<rect x="{x0:.1f}" y="{box_y:.1f}" width="{width:.1f}" height="{_BOX_H}" '
                    f'rx="4" fill="#ffffff" stroke="{color}" stroke-width="2" '
                    f'stroke-dasharray="3 2"><title>{tip}</title></rect>'
                )
            else:
                opacity = ' fill-opacity="0.85"' if row.outcome == "deadline" else ""
                self.out.append(
                    f'<rect x="{x0:.1f}" y="{box_y:.1f}" width="{width:.1f}" height="{_BOX_H}" '
                    f'rx="4" fill="{color}"{opacity}><title>{tip}</title></rect>'
                )
            if inside:
                label = f"stalled · run timeout at {row.t_end - row.t_start:.2f} s"
                self.out.append(
                    f'<text x="{x0 + width / 2:.1f}" y="{self.mid + 4}" class="inbox">'
                    f"{escape(label)}</text>"
                )
            else:
                self.out.append(
                    f'<text x="{x0 + width / 2:.1f}" y="{box_y - 5:.1f}" class="code" '
                    f'fill="{color}">{escape(label)}</text>'
                )
                label_right = x0 + width / 2 + half
            floor = x0 + width + 2
            if row.wait > 0:
                w = row.wait * self.scale
                self.out.append(
                    f'<rect x="{floor:.1f}" y="{self.mid - 5}" width="{w:.1f}" height="10" '
                    f'rx="2" fill="url(#wait)" stroke="#f08c00" stroke-width="0.8">'
                    f"<title>wait {row.wait:.2f} s ({escape(row.reason)})</title></rect>"
                )
                if w > 44:
                    self.out.append(
                        f'<text x="{floor + w / 2:.1f}" y="{self.mid + 20}" class="wait">'
                        f"wait {row.wait:.2f} s</text>"
                    )
                floor += w
            floor += _GAP
        return floor

    def _marks(self) -> None:
        tool_floor = flag_floor = float(_LABEL)
        for mark in self.step.marks:
            x = self.x(mark.t)
            if mark.kind == "tool":
                x = max(x, tool_floor)
                tool_floor = x + 7
                y = self.mid + _BOX_H / 2 + 4
                self.out.append(
                    f'<path d="M{x:.1f} {y} l-4 8 h8 z" fill="{COLORS["tool"]}">'
                    f"<title>{escape(mark.text)}</title></path>"
                )
            elif mark.kind == "breaker":
                self._flag(mark, x, flag_floor)
                flag_floor = max(x, flag_floor) + 8 + 7 * len(_flag_text(mark))

    def _flag(self, mark: Mark, x: float, floor: float) -> None:
        text = _flag_text(mark)
        tx = max(x, floor)
        bottom = self.top + _LANE - 6
        self.out.append(
            f'<line x1="{x:.1f}" y1="{self.top + 6}" x2="{x:.1f}" y2="{bottom}" '
            f'stroke="{COLORS["breaker"]}" stroke-width="1.5" stroke-dasharray="4 3"/>'
            f'<text x="{tx + 3:.1f}" y="{bottom - 2}" class="flag">{escape(text)}'
            f"<title>{escape(mark.text)}</title></text>"
        )


def _flag_text(mark: Mark) -> str:
    new = mark.text.rsplit("→", 1)[-1].strip().replace("_", "-")
    return f"⚡ {new}"


def _axis(span: float, height: float) -> list[str]:
    out = []
    scale = _PLOT / span
    step = _tick(span)
    n = round(span / step)
    for i in range(n + 1):
        t = i * step
        x = _LABEL + t * scale
        out.append(
            f'<line x1="{x:.1f}" y1="{_TOP - 6}" x2="{x:.1f}" y2="{height}" stroke="#e9ecef"/>'
            f'<text x="{x:.1f}" y="{_TOP - 12}" class="tick">{t:g} s</text>'
        )
    out.append(f'<text x="14" y="{_TOP - 12}" class="axis">step · seconds since it began →</text>')
    return out


def timeline_svg(result: DemoResult) -> str:
    """The chart of ``result`` as an ``<svg>`` element (inline styles, no external resource)."""
    span = _nice_max(max((s.duration for s in result.steps), default=1.0))
    scale = _PLOT / span
    height = _TOP + _LANE * len(result.steps) + 8
    body: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="timeline" viewBox="0 0 {_W} {height}" '
        f'style="width:100%;height:auto" role="img" aria-label="timeline of the demo steps">',
        "<defs><pattern id='wait' width='6' height='6' patternUnits='userSpaceOnUse' "
        "patternTransform='rotate(45)'><rect width='6' height='6' fill='#ffd8a8'/>"
        "<line x1='0' y1='0' x2='0' y2='6' stroke='#f8b26a' stroke-width='3'/></pattern></defs>",
        "<style>text{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}"
        ".lane{font-size:14px;font-weight:600;fill:#212529}.num{fill:#868e96}"
        ".pill{font-size:11px;font-weight:700;fill:#fff;text-anchor:middle}"
        ".facts{font-size:11.5px;fill:#495057}"
        ".tick{font-size:11px;fill:#868e96;text-anchor:middle}"
        ".axis{font-size:11px;fill:#adb5bd;font-weight:600;text-transform:uppercase}"
        ".code{font-size:11px;font-weight:700;text-anchor:middle}"
        ".inbox{font-size:11.5px;font-weight:600;fill:#fff;text-anchor:middle}"
        ".wait{font-size:11px;fill:#d9480f;text-anchor:middle;font-weight:600}"
        ".flag{font-size:11px;font-weight:700;fill:#ae3ec9}"
        ".dur{font-size:11.5px;fill:#495057}.muted{font-size:12.5px;fill:#868e96;"
        "font-style:italic}</style>",
        f'<rect x="0" y="0" width="{_W}" height="{height}" fill="#ffffff"/>',
    ]
    lanes: list[str] = []
    for i, step in enumerate(result.steps):
        lanes += _Lane(step, _TOP + i * _LANE, scale).draw(i)
    # Lane backgrounds first, then the axis grid over them, then the marks.
    backgrounds = [s for s in lanes if s.startswith('<rect x="0"')]
    rest = [s for s in lanes if not s.startswith('<rect x="0"')]
    body += backgrounds + _axis(span, height) + rest
    body.append("</svg>")
    return "\n".join(body)
