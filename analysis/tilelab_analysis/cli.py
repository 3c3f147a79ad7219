"""What every command of the analysis does as a program: its exit code does not depend on whether its reader
read all of its output. `summary FILE | head -1` closes the pipe after one line; Python would then raise
BrokenPipeError in the middle of the command (a traceback, and exit 1, which for `compare` means "a case got
slower"). Instead, output past a closed pipe is dropped and the command finishes with the code it would have
had: summary 0 (2 bad input), compare 0 / 1 (a case got slower) / 2, report 0 / 2."""
import io
import os
import sys


class _PipeSafe(io.TextIOBase):
    """stdout, until its reader has gone: then nothing."""

    def __init__(self, stream):
        self._s = stream
        self._gone = False

    def _drop(self):
        self._gone = True
        try:  # the interpreter's own flush at exit goes nowhere too
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._s.fileno())
            os.close(devnull)
        except (OSError, ValueError, io.UnsupportedOperation):
            pass

    def write(self, text):
        if not self._gone:
            try:
                return self._s.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self):
        if not self._gone:
            try:
                self._s.flush()
            except BrokenPipeError:
                self._drop()

    def writable(self):
        return True

    def fileno(self):
        return self._s.fileno()

    def isatty(self):
        return self._s.isatty()


def run(main):
    """sys.exit(main()), with stdout safe against a reader that stops early."""
    if not isinstance(sys.stdout, _PipeSafe):
        sys.stdout = _PipeSafe(sys.stdout)
    code = main()
    sys.stdout.flush()
    sys.exit(code)
