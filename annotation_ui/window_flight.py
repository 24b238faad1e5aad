"""The main window's ball flight: marking its start / middle / end frames (a draft kept in
the document, courtstudio/editing/document_lists.py) and drawing the fitted arc: a mixin of
MainWindow (annotation_ui/main_window.py)."""

from __future__ import annotations

import numpy as np


class BallFlightGlue:
    """Ball-panel flight requests and the arc overlay over ``self.doc``."""

    def mark_flight(self, part: str) -> None:
        """Record this frame as the flight's start, middle or end; the third mark fits it."""
        if not self.doc.mark_ball_flight(part, self._fid):  # the draft: an undoable edit
            self.statusBar().showMessage(
                "Flight: "
                + ", ".join(f"{k} = {v}" for k, v in self.doc.flight_draft.items())
                + "; mark the other frames",
                6000,
            )

    def _draw_flight(self, cam, ann) -> None:
        """The fitted arc over this frame, and how far the fit is from this frame's click."""
        from annotation_ui.overlay_items import FLIGHT

        flight, info = self.doc.ball_flight_at(self.doc.current_index)
        if flight is None:
            text = info or (
                "draft: " + ", ".join(f"{k} {v}" for k, v in self.doc.flight_draft.items())
                if self.doc.flight_draft
                else "no flight through this frame"
            )
            self.ball_panel.set_flight_text(text, False)
            return
        P = self.doc.project
        t_end = P.index_of(info.end) / P.fps
        arc = flight.position(np.linspace(flight.t0, t_end, 80))
        here = flight.position([self.doc.current_index / P.fps])[0]
        text = (
            f"flight {info.start} .. {info.end}: {'ok' if flight.ok else flight.message}; "
            f"fit RMS {flight.rms_m * 100:.1f} cm; here ({here[0]:.2f}, {here[1]:.2f}, "
            f"{here[2]:.2f}) m"
        )
        if cam is not None:
            from geometry.projection import project_polyline

            self.overlay.polylines(project_polyline(cam, arc, 0.1), FLIGHT, 1.5, dashed=True)
            uv = cam.project(here[None])[0]
            if np.all(np.isfinite(uv)):
                self.overlay.marker(uv, "circle", FLIGHT, 6, 2.0)
                b = ann.ball
                if b is not None and b.visible and b.uv is not None:
                    text += f"; {np.linalg.norm(uv - np.array(b.uv)):.1f} px from the click"
        self.ball_panel.set_flight_text(text, True)
