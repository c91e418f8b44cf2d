"""``mlspace ARGS`` as its own process, the way a test runs the command line.

Each command is a separate process with the test's argv, working directory, environment
and stdin, and the exit code, stdout and stderr are its own. By default it is forked from a
process that already imported mlspace (tests/cli_zygote.py, one per test process), which
saves each run the interpreter's and NumPy's start-up; ``MLSPACE_TEST_EXEC=1`` (or an
environment whose interpreter settings differ: locale, ``PYTHON*``) runs
``python -m mlspace`` afresh instead. Tests of start-up itself, of signals and of terminals
run ``subprocess`` directly.
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import subprocess
import sys
import tempfile
from pathlib import Path

_ZYGOTE = Path(__file__).with_name("cli_zygote.py")
#: Environment variables read when the interpreter starts, which a forked child cannot
#: take on afterwards: a run that changes one of them is executed afresh.
_AT_START = ("LANG", "LC_", "PYTHON")
#: Except the hash seed, which Dask's nanny sets in the test process's environment: a fresh
#: interpreter draws a new one anyway, so no command's output may depend on it.
_ANY_SEED = "PYTHONHASHSEED"


class _Zygote:
    """The forking process of this test process, started on first use."""

    def __init__(self) -> None:
        self.env = dict(os.environ)
        self.process = subprocess.Popen([sys.executable, str(_ZYGOTE)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, env=self.env)
        self.scratch = Path(tempfile.mkdtemp(prefix="mlspace-cli-"))
        assert json.loads(self.process.stdout.readline()) == {"ready": True}
        atexit.register(self.close)

    def run(self, argv: list[str], cwd: str, env: dict[str, str], timeout: float | None,
            memory: int | None) -> tuple[dict, bytes, bytes]:
        out, err = self.scratch / "stdout", self.scratch / "stderr"
        request = {"argv": argv, "cwd": cwd, "env": env, "stdin": os.devnull, "stdout": str(out),
                   "stderr": str(err), "timeout": timeout, "memory": memory}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        return answer, out.read_bytes(), err.read_bytes()

    def starts_like(self, env: dict[str, str]) -> bool:
        """Whether a child of this process starts as a fresh interpreter under ``env``."""
        return all(self.env.get(k) == env.get(k) for k in {*self.env, *env}
                   if k.startswith(_AT_START) and k != _ANY_SEED)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=10)
        for name in ("stdout", "stderr"):
            (self.scratch / name).unlink(missing_ok=True)
        self.scratch.rmdir()


_zygote: _Zygote | None = None


def run_mlspace(*args: str, cwd: str | Path | None = None, env: dict[str, str] | None = None,
                timeout: float | None = None, memory: int | None = None, text: bool = True
                ) -> subprocess.CompletedProcess:
    """``mlspace ARGS`` as its own process (stdin empty, as from ``/dev/null``), its output
    captured; ``memory`` caps its address space (a runaway read fails fast); past
    ``timeout`` seconds it is killed and ``subprocess.TimeoutExpired`` raised."""
    global _zygote
    argv = [sys.executable, "-m", "mlspace", *args]
    env = dict(os.environ) if env is None else env
    if os.environ.get("MLSPACE_TEST_EXEC") == "1" or (
            _zygote is not None and not _zygote.starts_like(env)):
        return _executed(argv, cwd, env, timeout, memory, text)
    if _zygote is None:
        _zygote = _Zygote()
        if not _zygote.starts_like(env):
            return _executed(argv, cwd, env, timeout, memory, text)
    answer, out, err = _zygote.run(list(args), str(Path(cwd or os.getcwd()).resolve()), env,
                                   timeout, memory)
    if answer.get("timeout"):
        raise subprocess.TimeoutExpired(argv, timeout, out, err)
    if text:
        return subprocess.CompletedProcess(argv, answer["status"], _as_text(out),
                                           _as_text(err))
    return subprocess.CompletedProcess(argv, answer["status"], out, err)


def _as_text(data: bytes) -> str:
    """Bytes as ``subprocess``'s text mode gives them: the locale's encoding, strict, with
    universal newlines."""
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _executed(argv: list[str], cwd: str | Path | None, env: dict[str, str],
              timeout: float | None, memory: int | None, text: bool
              ) -> subprocess.CompletedProcess:
    """The same run as a fresh ``python -m mlspace``."""
    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run(argv, capture_output=True, text=text, cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, timeout=timeout,
                          preexec_fn=limit if memory else None)
