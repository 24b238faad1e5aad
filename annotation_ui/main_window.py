"""The main window: assembles the canvas, panels, views and timeline around an open document.

It holds no annotation state: everything is in ``AnnotationDocument`` (edits, undo, saving) and
``ToolState`` (tool, next keypoint, selected player); widgets are refreshed from them.

The window's other jobs are mixins, one module each: menus and shortcuts (window_menus.py),
project files and Preferences (window_files.py), the commands on the current frame
(window_commands.py), export and propagation dialogs (window_export.py), the players buttons
over the Qt-free workflow (window_players.py), the ball flight (window_flight.py).
The tool panels are registered in panels.py.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from annotation_ui.canvas_tools import CanvasTools
from annotation_ui.frame_view import FrameView
from annotation_ui.loupe import Loupe
from annotation_ui.masks_tool import MasksTool
from annotation_ui.overlay_items import (
    CLICK,
    OverlayLayer,
    draw_ball,
    draw_clicks,
    draw_court,
    draw_mesh,
    draw_players,
)
from annotation_ui.panels import PANELS, panel_index
from annotation_ui.qimage import bgr_to_pixmap
from annotation_ui.timeline import Timeline
from annotation_ui.view_adjust import ViewAdjust
from annotation_ui.views import OrbitView, TopDownView
from annotation_ui.window_commands import FrameCommands
from annotation_ui.window_deferred import DeferredUpdates
from annotation_ui.window_export import ExportDialogs
from annotation_ui.window_files import FileOperations
from annotation_ui.window_flight import BallFlightGlue
from annotation_ui.window_menus import MAX_RECENT, WRITING_ACTIONS, MenuActions  # noqa: F401
from annotation_ui.window_players import PlayersGlue
from courtstudio.editing.document import AnnotationDocument
from courtstudio.editing.journal_guard import GuardedAutosave
from courtstudio.editing.player_workflow import PlayerWorkflow
from courtstudio.editing.tool_state import ToolState
from courtstudio.io.settings import Settings
from courtstudio.pipeline.live_calibration import box_ground_point, lift_frame_ball
from courtstudio.pipeline.players import world_player
from exporters.orbit_view import OrbitPlayer

HOVER_PX = 10.0  # screen px: a keypoint this close to the cursor is labelled
SIDE_PX, SIDE_MIN_PX = 440, 380  # the side panel's width (loupe + views, tool panels)


class MainWindow(
    DeferredUpdates,
    MenuActions,
    FrameCommands,
    FileOperations,
    ExportDialogs,
    PlayersGlue,
    BallFlightGlue,
    QMainWindow,
):
    def __init__(self, settings: Settings | None = None):
        """settings: the user's settings (default: loaded from the environment and the
        settings file, re-read after Preferences)."""
        super().__init__()
        self.doc: AnnotationDocument | None = None
        self.autosave: GuardedAutosave | None = None
        self.project_lock = None  # the held .courtstudio/lock (courtstudio.io.project_lock)
        self.read_only_reason: str | None = None
        # view_only: look without writing anything (screenshots): no lock, no journal
        self.view_only = False
        self.tools = ToolState()
        # the settings file as Qt reads and writes it (Preferences, recent projects)
        self.settings = QSettings(
            str((settings or Settings.load()).settings_file), QSettings.Format.IniFormat
        )
        self.app_settings = settings or self._load_settings()
        self.player_workflow = PlayerWorkflow(self.app_settings)
        self.ask = self._ask_user  # replaced in tests: (title, text, buttons) -> button
        self.ask_int = self._ask_int  # replaced in tests: (title, label, value, lo, hi)
        self._dragging = False
        # after a frame change the doctor (leave-one-out, relabellings) and the ball's
        # 1-sigma wait until the frame has been shown (_frame_shown)
        self._diagnosis_pending = False
        self._diagnosis_token = 0
        self._panels_at = 0.0  # time.monotonic() of the last panel update
        self._panel_timer = QTimer(self)  # the trailing panel update of a drag
        self._panel_timer.setSingleShot(True)
        self._panel_timer.timeout.connect(lambda: self.refresh(panels_now=True))
        self._hover_kp: str | None = None
        self.view_adjust = ViewAdjust()
        self._image = None  # the current frame as read (BGR), before the view adjustment
        self._build()
        self._build_actions()
        self.tools.changed.connect(self.refresh)
        self.resize(1500, 900)
        self._update_title()

    # ------------------------------------------------------------------- layout
    def _build(self):
        self.view = FrameView()
        self.overlay = OverlayLayer(self.view.scene())
        self.canvas = CanvasTools(None, self.tools, self.view)
        self.canvas.message.connect(lambda m: self.statusBar().showMessage(m, 6000))
        self.view.pressed.connect(lambda *a: setattr(self, "_dragging", True))
        self.view.released.connect(self._drag_finished)
        self.view.hovered.connect(self._hovered)
        self.view.zoomed.connect(self.refresh)  # labels are placed apart at this zoom
        self.view.painted.connect(self._frame_shown)
        self.loupe = Loupe()
        self.tabs = QTabWidget()
        for panel in PANELS:  # annotation_ui/panels.py
            setattr(self, panel.attr, panel.factory())
            self.tabs.addTab(getattr(self, panel.attr), panel.tab_text)
        self.tabs.currentChanged.connect(lambda i: self.tools.set_tool(PANELS[i].id))
        # registration masks: the tool listens to the view itself (annotation_ui/masks_tool.py)
        self.masks_tool = MasksTool(self, self.masks_panel)
        self.tabs.setTabToolTip(
            panel_index("masks"),
            "Registration masks: rectangles over "
            "broadcast graphics that propagation ignores, one set per "
            "project (M)",
        )
        self.topdown = TopDownView()
        self.orbit = OrbitView()
        self.result_tabs = QTabWidget()
        self.result_tabs.addTab(self.topdown, "Top-down")
        self.result_tabs.addTab(self.orbit, "3D")
        self.result_tabs.currentChanged.connect(lambda i: self.refresh())
        # laptop layout (issue 10: on 1366x768 the canvas was 695 px wide and three residual
        # rows showed): a side panel of fixed width, the loupe beside the result views on
        # one row above the tool panels, so the panels get the height
        side = QWidget()
        side.setMinimumWidth(SIDE_MIN_PX)
        side_lay = QVBoxLayout(side)
        side_lay.setContentsMargins(0, 0, 0, 0)
        side_lay.setSpacing(2)
        top = QWidget()
        top_lay = QHBoxLayout(top)
        top_lay.setContentsMargins(0, 0, 0, 0)
        top_lay.addWidget(self.loupe, 0, Qt.AlignmentFlag.AlignTop)
        top_lay.addWidget(self.result_tabs, 1)
        self.result_tabs.setMaximumHeight(self.loupe.height() + 26)
        side_lay.addWidget(top, 0)
        side_lay.addWidget(self.tabs, 1)
        self.timeline = Timeline()
        self.timeline.frame_requested.connect(self.go_to)
        centre = QSplitter(Qt.Orientation.Vertical)
        centre.addWidget(self.view)
        centre.addWidget(self.timeline)
        centre.setSizes([820, 50])
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(centre)
        main.addWidget(side)
        main.setStretchFactor(0, 1)  # the canvas takes what the window gains
        main.setStretchFactor(1, 0)
        main.setSizes([1060, SIDE_PX])
        self.main_split = main
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setStyleSheet(
            "background: #f6c343; color: #1a1a1a; padding: 6px; font-weight: bold;"
        )
        self.banner.hide()
        central = QWidget()
        central_lay = QVBoxLayout(central)
        central_lay.setContentsMargins(0, 0, 0, 0)
        central_lay.setSpacing(0)
        central_lay.addWidget(self.banner)
        central_lay.addWidget(main)
        self.setCentralWidget(central)
        self.placeholder = QLabel(
            "Open a project (Ctrl+O), create one (Ctrl+N), or open the "
            "sample (File > Open sample project)."
        )
        self.statusBar().addPermanentWidget(self.placeholder)
        # what is shown and where the cursor is: permanent, so that the notices (saved,
        # propagated, an error) shown on the left are not overwritten by the next redraw
        self.cursor_label = QLabel()
        self.frame_label = QLabel()
        self.statusBar().addPermanentWidget(self.cursor_label)
        self.statusBar().addPermanentWidget(self.frame_label)
        self.court_panel.diagram.keypoint_clicked.connect(self.tools.set_keypoint)
        self.court_panel.apply_suggestion.connect(self._apply_suggestion)
        self.court_panel.set_static_range.connect(self._static_range)
        self.court_panel.lens_model_changed.connect(self._lens_model_changed)
        self.court_panel.refine_lines.connect(lambda: self._guarded(self.refine_on_lines))
        self.ball_panel.not_visible_toggled.connect(
            lambda on: self._edit(self.doc.set_ball_not_visible, self._fid, on)
        )
        self.ball_panel.plane_chosen.connect(
            lambda plane: self._edit(self.doc.set_ball_plane, self._fid, plane)
        )
        self.ball_panel.clear_requested.connect(lambda: self._edit(self.doc.clear_ball, self._fid))
        self.ball_panel.flight_mark.connect(lambda part: self._edit(self.mark_flight, part))
        self.ball_panel.flight_remove.connect(
            lambda: self._edit(self.doc.remove_ball_flight_at, self.doc.current_index)
        )
        self.players_panel.player_selected.connect(self.tools.set_player)
        self.players_panel.delete_requested.connect(
            lambda pid: self._edit(self.doc.remove_player, self._fid, pid)
        )
        self.players_panel.height_set.connect(
            lambda pid, h: self._edit(self.doc.set_player_height, self._fid, pid, h)
        )
        self.players_panel.load_mesh_requested.connect(self.load_mesh_dialog)
        self.players_panel.propose_requested.connect(self.propose_boxes)
        self.players_panel.import_hmr_requested.connect(self.import_hmr_dialog)
        self.players_panel.run_hmr_requested.connect(lambda: self._edit(self.run_prompthmr))
        self.players_panel.track_requested.connect(lambda: self._edit(self.track_players))
        self.players_panel.template_requested.connect(
            lambda pid, h: self._edit(self.template_body, pid, h)
        )

    # ----------------------------------------------------------------- editing
    @property
    def _fid(self) -> str:
        return self.doc.current_frame.id

    def _guarded(self, fn, *args):
        if self.doc is None and fn not in (
            self.new_project_dialog,
            self.open_project_dialog,
            self.open_sample,
            self.close,
            self.show_shortcuts,
            self.preferences_dialog,
            self.toggle_overlays,
            self.view_adjust_dialog,
        ):
            return
        try:
            fn(*args)
        except (ValueError, KeyError) as exc:
            self.statusBar().showMessage(" ".join(str(exc).split()), 6000)

    def _edit(self, fn, *args):
        self._guarded(fn, *args)

    def undo(self):
        self.doc.undo()

    def redo(self):
        self.doc.redo()

    def set_tool(self, tool: str):
        self.tabs.setCurrentIndex(panel_index(tool))

    def step(self, delta: int):
        self.doc.step(delta)

    def go_to(self, index: int):
        if self.doc is not None:
            self.doc.go_to(index)

    def go_to_flagged(self, step: int):
        """The next (step 1) or previous (step -1) frame flagged for review: by the annotator
        (F) or by propagation (red on the timeline)."""
        if self.doc is None:
            return
        index = self.timeline.next_set("flagged", self.doc.current_index, step)
        if index is None:
            way = "after" if step > 0 else "before"
            self.statusBar().showMessage(f"No flagged frame {way} this one", 4000)
        else:
            self.doc.go_to(index)

    def _apply_suggestion(self, mapping: dict):
        self._edit(self.doc.apply_relabelling, self._fid, mapping)

    def _static_range(self, first: int, last: int):
        self._edit(self.doc.set_camera_range, first, last, self._fid)

    def _drag_finished(self, *args):
        self._dragging = False
        # the drop shows at once (the camera with its lens model); the doctor, which reads
        # the frame's painted lines, follows the repaint
        self._show_then_diagnose()

    # ----------------------------------------------------------------- refresh
    def _frame_changed(self, index: int):
        frame = self.doc.current_frame
        img = self.doc.frames.image(frame)
        self._image = img
        shown = self.view_adjust.apply(img)
        self.view.set_pixmap(bgr_to_pixmap(shown))
        self.loupe.set_image(shown)
        self.timeline.set_current(index)
        with self.tools.quiet():  # one refresh below, not one per tool change
            self.tools.set_keypoint(None)
            self.tools.advance(self.doc.spec(), self.doc.annotation(frame.id).points)
        # show the frame first: the doctor and the ball's 1-sigma follow its first repaint
        self._show_then_diagnose()

    def _annotation_changed(self, frame_id: str):
        index = self.doc.project.index_of(frame_id)
        self.timeline.set_status(index, self.doc.frame_status(index))
        if frame_id == self._fid:
            if not self._dragging:  # an edit of the frame shown: its doctor runs now
                self._diagnosis_pending = False
            self.refresh()

    def _ranges_changed(self):
        self.timeline.set_statuses(
            [self.doc.frame_status(i) for i in range(self.doc.frame_count)], self.doc.current_index
        )
        self.refresh()

    def _update_title(self):
        name = self.doc.project.name if self.doc else "no project"
        ro = " (read-only)" if self.read_only_reason else ""
        self.setWindowTitle(f"CourtStudio - {name}{ro}[*]")
        self.setWindowModified(bool(self.doc and self.doc.is_dirty))

    def _hovered(self, u: float, v: float):
        if self.doc is None:
            return
        points = self.doc.annotation(self._fid).points
        marks = [(p, CLICK) for p in points.values() if abs(p[0] - u) < 12 and abs(p[1] - v) < 12]
        r = HOVER_PX * self.view.pixels_per_screen_px()
        near = [(float(np.hypot(p[0] - u, p[1] - v)), n) for n, p in points.items()]
        hover = min((d, n) for d, n in near)[1] if near and min(near)[0] <= r else None
        if hover != self._hover_kp and not self._dragging:
            self._hover_kp = hover
            self.refresh()
        self.loupe.set_cursor(u, v, marks)
        self.loupe.hovered = True
        self.cursor_label.setText(f"({u:.1f}, {v:.1f})")

    def refresh(self, panels_now: bool = False):
        """Redraw the overlays and panels of the current frame from the document. During a
        drag the panels are updated at most every PANEL_DRAG_MS (the last state always
        shows: a timer updates them after the last move), the overlays on every call."""
        if self.doc is None:
            return
        frame = self.doc.current_frame
        spec = self.doc.spec(frame)
        ann = self.doc.annotation(frame.id)
        diagnose = not (self._dragging or self._diagnosis_pending)
        state = self.doc.camera_state(frame.id, diagnose=diagnose)
        cam = state.camera
        self.overlay.begin()  # items are updated in place; end() drops the unused ones
        self.overlay.screen_scale = self.view.transform().m11()
        if cam is not None:
            draw_court(self.overlay, cam, spec, state.inherited or state.propagated is not None)
        draw_clicks(
            self.overlay,
            ann,
            spec,
            None if state.inherited else state.calibration,
            self.tools.keypoint if self.tools.tool == "court" else None,
            self._hover_kp if self.tools.tool == "court" else None,
        )
        ball, ball_msg = lift_frame_ball(state, spec, ann, uncertainty=diagnose)
        plane = ann.ball.plane if ann.ball and ann.ball.plane else spec.default_plane
        draw_ball(self.overlay, ann, cam, spec.plane_z(plane), ball)
        draw_players(self.overlay, ann, self.tools.player_id)
        self.masks_tool.draw(self.overlay)
        self._draw_flight(cam, ann)
        self._draw_meshes(ann, cam)
        self.overlay.end()
        if not self._panels_due(panels_now):
            return
        world = self._world_players(ann, spec, cam)
        grounds = {}
        for p in ann.players:
            if p.id in world:
                grounds[p.id] = world[p.id].ground_xy
            elif cam is not None:
                g = box_ground_point(cam, p.box_xyxy, spec.player_plane_z())
                grounds[p.id] = None if g is None else g[:2]
        self.court_panel.update_state(
            spec, ann, state, self.tools.keypoint, self.doc.current_index, self.doc.frame_count
        )
        self.ball_panel.update_state(spec, ann, ball, ball_msg)
        self.players_panel.update_state(
            ann,
            grounds,
            self.tools.player_id,
            {pid: w.scale for pid, w in world.items()},
            "SAM3" if self.app_settings.sam3_checkpoint else None,
        )
        ball_world = None if ball is None else ball.world
        self.topdown.set_scene(
            spec,
            ball_world,
            list(grounds.items()),
            None if cam is None else cam.camera_centre_world,
        )
        if self.result_tabs.currentWidget() is self.orbit:
            players = []
            for pid, g in grounds.items():
                w = world.get(pid)
                ground = None if g is None else np.array([g[0], g[1], spec.player_plane_z()])
                players.append(
                    OrbitPlayer(
                        pid,
                        ground,
                        None if w is None else w.vertices_world,
                        None if w is None else self.doc.player_mesh(ann.player(pid).mesh).faces,
                    )
                )
            self.orbit.set_scene(spec, cam, ball_world, players)
        if not self.loupe.hovered and cam is not None and self.tools.keypoint is not None:
            pred = cam.project(spec.keypoints[self.tools.keypoint][None])[0]
            if np.all(np.isfinite(pred)):
                self.loupe.show_at(*pred)
        self.frame_label.setText(
            f"Frame {self.doc.current_index + 1}/{self.doc.frame_count} {frame.id} | "
            f"{self.tools.tool}"
            + (
                f": next {self.tools.keypoint}"
                if self.tools.tool == "court" and self.tools.keypoint
                else ""
            )
            + (f": {self.masks_tool.status_hint()}" if self.tools.tool == "masks" else "")
        )
        self._update_title()

    def _draw_meshes(self, ann, cam) -> None:
        """Players with a mesh: their silhouettes over the frame (a frame's first drawing
        leaves new silhouettes to the deferred pass)."""
        if cam is None:
            return
        for p in ann.players:
            if p.mesh is None:
                continue
            try:
                draw_mesh(
                    self.overlay,
                    p.mesh,
                    self.doc.player_mesh(p.mesh),
                    cam,
                    allow_stale=self._dragging,
                    cached_only=self._diagnosis_pending,
                )
            except ValueError as exc:
                self.statusBar().showMessage(f"Player {p.id}: {exc}", 6000)

    def _world_players(self, ann, spec, cam) -> dict:
        """Players with a mesh placed in the world (rescaled)."""
        out = {}
        if cam is None:
            return out
        for p in ann.players:
            if p.mesh is None:
                continue
            try:
                out[p.id] = world_player(
                    cam,
                    self.doc.player_mesh(p.mesh),
                    p.lowest_vertex_height_m,
                    spec.player_plane_z(),
                )
            except ValueError as exc:
                self.statusBar().showMessage(f"Player {p.id}: {exc}", 6000)
        return out

    def resizeEvent(self, event):
        super().resizeEvent(event)
        sizes = self.main_split.sizes()  # keep the side panel's width, the canvas the rest
        if sum(sizes) > SIDE_PX + 200 and sizes[1] > SIDE_PX + 40:
            self.main_split.setSizes([sum(sizes) - SIDE_PX, SIDE_PX])

    # ------------------------------------------------------------------- misc
    def _ask_user(self, title: str, text: str, buttons: list[str]) -> str:
        box = QMessageBox(self)
        box.setWindowTitle(title)
        box.setText(text)
        made = {
            box.addButton(
                b,
                QMessageBox.ButtonRole.AcceptRole if i == 0 else QMessageBox.ButtonRole.RejectRole,
            ): b
            for i, b in enumerate(buttons)
        }
        box.exec()
        return made.get(box.clickedButton(), buttons[-1])
