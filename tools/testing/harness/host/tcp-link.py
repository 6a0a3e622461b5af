#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The two guests' link: one TCP connection on 127.0.0.1, TCP_NODELAY at
both ends, its two sockets handed to CMD as file descriptors 3 (guest a's
end) and 4 (guest b's) for QEMU's "-netdev socket,fd=N".

Usage: tcp-link.py CMD [ARGS...]

QEMU's own "-netdev socket,listen=/connect=" (and "stream") leave Nagle's
algorithm on at the connecting end: a frame written while an earlier one
is unacknowledged waits for the peer's delayed ACK (40 ms), so every
exchange of two small frames in a row (an ACK, then a reply) took ~44 ms
end to end.  A TCP link keeps what a UDP one would lose: when a guest's
receive ring is full its QEMU stops reading, TCP stops the sender, and the
sending guest's queue backs up (a lossless fabric), where "-netdev dgram"
drops the datagrams that do not fit the socket buffer."""
import fcntl
import os
import socket
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tcp-link.py CMD [ARGS...]")
    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.bind(("127.0.0.1", 0))
    lsn.listen(1)
    a = socket.create_connection(lsn.getsockname())
    b, _ = lsn.accept()
    lsn.close()
    for s in (a, b):
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    # above 4 first: either socket may be 3 or 4 now
    high = [fcntl.fcntl(s.fileno(), fcntl.F_DUPFD, 10) for s in (a, b)]
    a.close()
    b.close()
    for fd, high_fd in ((3, high[0]), (4, high[1])):
        os.dup2(high_fd, fd)
        os.close(high_fd)
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
