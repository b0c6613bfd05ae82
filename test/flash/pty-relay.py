#!/usr/bin/env python3
"""A board's USB serial port, played by a pseudo-terminal, for the flash tests.

Usage: pty-relay.py LINK

Makes a pty, points the symlink LINK at its slave (the "port" flash.sh opens)
and relays bytes between the pty and the test, which plays the board. The
slave keeps a terminal's default settings (line editing, CR/LF translation),
as a USB serial port has when opened, so the host must make it raw itself;
only echo is off, or whatever the board says before the host opens the port
would come back to it as typing. The relay holds only the master, so a
program that opens the port is its only user (fuser sees no one else).

Frames on stdin and stdout: one type byte, a 4-byte big-endian length, the
payload.
  to the relay:   D bytes   write to the port (board output)
                  U ms      unplug: close the pty, remove LINK, wait ms, then
                            make a new pty at LINK (a board reset: the USB
                            serial port goes away and comes back)
                  Q         quit
  from the relay: O path    a pty is ready at LINK (path of its slave)
                  D bytes   read from the port (what the host sent)
"""
import errno
import os
import pty
import select
import struct
import sys
import termios
import time

link = sys.argv[1]
out = sys.stdout.buffer
inp = sys.stdin.buffer.raw


def frame(kind, payload):
    out.write(kind + struct.pack('>I', len(payload)) + payload)
    out.flush()


def plug():
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~(termios.ECHO | termios.ECHONL)
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    name = os.ttyname(slave)
    # The settings stay while the master is open; the host opens the slave.
    os.close(slave)
    os.set_blocking(master, False)
    try:
        os.unlink(link)
    except FileNotFoundError:
        pass
    os.symlink(name, link)
    frame(b'O', name.encode())
    return master


def unplug(master):
    os.close(master)
    try:
        os.unlink(link)
    except FileNotFoundError:
        pass


master = plug()
pending = b''  # board output not yet taken by the pty
inbuf = b''
quit_ = False
while not quit_:
    wlist = [master] if pending else []
    r, w, _ = select.select([master, inp], wlist, [], 0.05)
    if master in r:
        try:
            data = os.read(master, 65536)
            if data:
                frame(b'D', data)
        except OSError as e:
            # EIO: nobody has the port open right now.
            if e.errno not in (errno.EIO, errno.EAGAIN):
                raise
            time.sleep(0.01)
    if master in w and pending:
        try:
            n = os.write(master, pending)
            pending = pending[n:]
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EIO):
                raise
            time.sleep(0.01)
    if inp in r:
        chunk = os.read(inp.fileno(), 65536)
        if not chunk:
            break
        inbuf += chunk
        while len(inbuf) >= 5:
            kind = inbuf[:1]
            size = struct.unpack('>I', inbuf[1:5])[0]
            if len(inbuf) < 5 + size:
                break
            payload = inbuf[5:5 + size]
            inbuf = inbuf[5 + size:]
            if kind == b'D':
                pending += payload
            elif kind == b'U':
                unplug(master)
                pending = b''
                time.sleep(int(payload.decode()) / 1000.0)
                master = plug()
            elif kind == b'Q':
                quit_ = True
                break

unplug(master)
