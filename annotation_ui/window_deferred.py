"""The main window's deferred updates: after a frame change or a drag's release the doctor
(leave-one-out, relabellings, the painted-line check) and the ball's 1-sigma wait until the
frame has been shown, and during a drag the side panels follow at most every PANEL_DRAG_MS
while the canvas follows every move."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer

DIAGNOSIS_FALLBACK_MS = 150  # the doctor runs this late at most when no repaint comes
PANEL_DRAG_MS = 50  # during a drag the side panels follow at most this often (the canvas: always)


class DeferredUpdates:
    """Mixin of MainWindow: ``_diagnosis_pending`` / ``_diagnosis_token`` (the frame change
    whose doctor waits), ``_panels_at`` and ``_panel_timer`` (the panels' last update and
    their trailing update after a drag), set up in MainWindow.__init__."""

    def _show_then_diagnose(self) -> None:
        """Refresh without the doctor and the ball's 1-sigma, then run them after the next
        repaint (at most DIAGNOSIS_FALLBACK_MS later): a frame change and a drag's release."""
        self._diagnosis_pending = True
        self._diagnosis_token += 1
        token = self._diagnosis_token
        self.refresh()
        if not self.view.isVisible():  # no repaint will come
            QTimer.singleShot(0, self, lambda: self._diagnose_now(token))
        QTimer.singleShot(DIAGNOSIS_FALLBACK_MS, self, lambda: self._diagnose_now(token))

    def _frame_shown(self):
        if self._diagnosis_pending:
            token = self._diagnosis_token
            QTimer.singleShot(0, self, lambda: self._diagnose_now(token))

    def finish_deferred(self) -> None:
        """Run the deferred doctor now if it is pending (screenshots: nothing is left out)."""
        self._diagnose_now(self._diagnosis_token)

    def _diagnose_now(self, token: int):
        """The deferred doctor of the frame shown (skipped if the annotator moved on)."""
        if self.doc is not None and self._diagnosis_pending and token == self._diagnosis_token:
            self._diagnosis_pending = False
            self.refresh()

    def _panels_due(self, now: bool) -> bool:
        """Whether this refresh updates the panels: always, except during a drag less than
        PANEL_DRAG_MS after the last update (then a timer updates them when it is due)."""
        elapsed_ms = (time.monotonic() - self._panels_at) * 1e3
        if now or not self._dragging or elapsed_ms >= PANEL_DRAG_MS:
            self._panel_timer.stop()
            self._panels_at = time.monotonic()
            return True
        if not self._panel_timer.isActive():
            self._panel_timer.start(max(1, round(PANEL_DRAG_MS - elapsed_ms)))
        return False
