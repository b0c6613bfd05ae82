#!/usr/bin/env python3
"""A terminal for one command, for the tests: runs it on a pseudo-terminal.

Usage: pty-run.py COMMAND [ARG...]

The command starts in a session of its own with the pty's slave as its
controlling terminal, the way a shell in a terminal window starts it: it is
the foreground process group, and the slave keeps a terminal's defaults
(line editing, echo, Ctrl-C as the interrupt character), 120 columns by 40
rows. Bytes on this program's stdin are typed into the terminal as they
come: a 0x03 byte is Ctrl-C, which the terminal turns into SIGINT to the
whole foreground process group, or hands over as a byte when the program
put the terminal in raw mode. Everything the terminal shows goes to stdout.

Once started, one line `pid N` goes to stderr: the command's process id,
also its process group's.

Exits when the command has exited and nothing holds the terminal any more
(a child left behind keeps it open): with the command's exit code, or
128 + the signal that ended it.
"""
import errno
import fcntl
import os
import pty
import select
import struct
import sys
import termios

pid, master = pty.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)

fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 120, 0, 0))
sys.stderr.write('pid %d\n' % pid)
sys.stderr.flush()

out = sys.stdout.buffer
inp = sys.stdin.buffer.raw
typing = True
status = None
while True:
    fds = [master] + ([inp] if typing else [])
    ready = select.select(fds, [], [], 0.2)[0]
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError as e:
            if e.errno != errno.EIO:
                raise
            data = b''
        if not data:
            break
        out.write(data)
        out.flush()
    if inp in ready:
        data = os.read(inp.fileno(), 4096)
        if data:
            os.write(master, data)
        else:
            typing = False
    if status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
if status is None:
    status = os.waitpid(pid, 0)[1]
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
