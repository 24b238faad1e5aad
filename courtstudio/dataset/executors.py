"""Where dataset tasks run: a Ray cluster (local by default, or one given by address), or in
this process one after another when Ray is not installed. Both have the same two calls:
``submit(fn, *args, gpu=False) -> handle`` and ``wait_one(handles) -> (handle, result,
exception)``, so the build driver (courtstudio.dataset.build) does not know which it has."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

TASK_THREADS_ENV = "COURTSTUDIO_TASK_THREADS"


def limit_task_threads() -> None:
    """Inside a Ray worker: OpenCV uses as many threads as the task has CPUs."""
    n = os.environ.get(TASK_THREADS_ENV)
    if n:
        import cv2

        cv2.setNumThreads(int(n))


class SerialExecutor:
    """Runs each task in this process when it is waited for (no parallelism)."""

    kind = "serial"

    def __init__(self, gpu: bool | Callable[[], bool] = False):
        """gpu: whether tasks may use this machine's GPU, or a check that says so, asked the
        first time ``gpus`` is read (only a build with the players stage reads it: the CUDA
        check imports torch, about 2 s)."""
        self._pending: dict[int, tuple[Callable, tuple]] = {}
        self._next = 0
        self._gpu = gpu
        self._gpus: int | None = None
        self.workers = 1

    @property
    def gpus(self) -> int:
        if self._gpus is None:
            self._gpus = 1 if (self._gpu() if callable(self._gpu) else self._gpu) else 0
        return self._gpus

    def describe(self) -> str:
        return "this process (serial, one task at a time)"

    def submit(self, fn: Callable, *args, gpu: bool = False) -> int:
        self._next += 1
        self._pending[self._next] = (fn, args)
        return self._next

    def wait_one(self, handles) -> tuple[Any, Any, BaseException | None]:
        h = min(handles)
        fn, args = self._pending.pop(h)
        try:
            return h, fn(*args), None
        except Exception as exc:  # reported by the driver, retried there
            return h, None, exc

    def shutdown(self) -> None:
        pass


class RayExecutor:
    """Tasks as Ray remote functions: one CPU each, one GPU for the GPU stages. Without an
    address Ray starts a local cluster of ``workers`` CPUs (default: this machine's)."""

    kind = "ray"

    def __init__(self, address: str | None, workers: int | None):
        import ray

        self.ray = ray
        kwargs: dict = {
            "ignore_reinit_error": True,
            "log_to_driver": False,
            "include_dashboard": False,
            "logging_level": "ERROR",
        }
        # one CPU per task: OpenCV's and BLAS's own thread pools would otherwise make every
        # task use every core, and N workers would not run N times as fast
        worker_env = {TASK_THREADS_ENV: "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        if address:
            kwargs["address"] = address
            kwargs["runtime_env"] = {"env_vars": worker_env}
            ray.init(**kwargs)
        else:
            kwargs["num_cpus"] = workers or os.cpu_count() or 1
            # the object store holds only small results here: keep it small on a laptop
            kwargs["object_store_memory"] = 256 * 1024 * 1024
            # a busy laptop starts worker processes slowly: give them time to register
            kwargs["_system_config"] = {"worker_register_timeout_seconds": 180}
            # workers import this checkout's packages like the driver does
            worker_env["PYTHONPATH"] = os.pathsep.join(
                p for p in [os.environ.get("PYTHONPATH", ""), _source_root()] if p
            )
            # A local cluster's processes inherit this process's environment when ray.init
            # starts them: set there, the workers Ray starts ahead run the tasks at once (a
            # runtime_env would start new workers for its variables, about 2 s). The
            # driver's own values come back as soon as ray.init returns (a builder starts one
            # cluster, from its main thread, before any task runs).
            with _environment(worker_env):
                ray.init(**kwargs)
        res = ray.cluster_resources()
        self.workers = int(res.get("CPU", 1))
        self.gpus = int(res.get("GPU", 0))
        self.address = address or "local"
        self._remote: dict[Callable, Any] = {}

    def describe(self) -> str:
        return f"a Ray cluster at {self.address}: {self.workers} CPUs, {self.gpus} GPUs"

    def submit(self, fn: Callable, *args, gpu: bool = False):
        remote = self._remote.get(fn)
        if remote is None:
            remote = self._remote[fn] = self.ray.remote(fn)
        return remote.options(num_cpus=1, num_gpus=1 if gpu else 0, max_retries=1).remote(*args)

    def wait_one(self, handles):
        ready, _ = self.ray.wait(list(handles), num_returns=1)
        h = ready[0]
        try:
            return h, self.ray.get(h), None
        except self.ray.exceptions.RayTaskError as exc:
            cause = exc.cause if isinstance(exc.cause, BaseException) else exc
            return h, None, cause
        except self.ray.exceptions.RayError as exc:  # a worker died: its node, memory...
            return h, None, exc

    def shutdown(self) -> None:
        self.ray.shutdown()


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """os.environ with values set inside the block, restored after it."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _source_root() -> str:
    from pathlib import Path

    return str(Path(__file__).resolve().parents[2])


def make_executor(address: str | None, workers: int | None, log: Callable[[str], None]):
    """Ray when it is installed, else serial in this process (said once on ``log``)."""
    try:
        import ray  # noqa: F401
    except ImportError:
        if address:
            raise RuntimeError("--address needs Ray: pip install 'courtstudio[scale]'") from None
        log(
            "Ray is not installed (pip install 'courtstudio[scale]'): running every task "
            "serially in this process"
        )
        return serial_executor()
    return RayExecutor(address, workers)


def serial_executor() -> SerialExecutor:
    """This process, one task at a time, with its GPU when torch sees one (checked when first
    needed)."""
    from hmr.devices import cuda_available

    return SerialExecutor(gpu=cuda_available)
