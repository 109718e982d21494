#!/usr/bin/env python3
"""A tiny DNS server for the example: answers A queries for the names given,
over TCP and UDP, on 127.0.0.1.

    resolver.py PORT READYFILE NAME=ADDRESS...

Every other name is NXDOMAIN; other query types get an empty answer. Once
it listens it writes READYFILE, and it serves until killed. It is the
resolver of a test, not one to run on a network."""
import os
import socket
import struct
import sys
import threading

port, ready = int(sys.argv[1]), sys.argv[2]
table = dict(arg.lower().split("=", 1) for arg in sys.argv[3:])


def answer(query):
    qid, flags = struct.unpack("!HH", query[:4])
    i, labels = 12, []
    while query[i]:
        labels.append(query[i + 1:i + 1 + query[i]].decode("ascii", "replace"))
        i += 1 + query[i]
    qtype, _ = struct.unpack("!HH", query[i + 1:i + 5])
    question = query[12:i + 5]
    name = ".".join(labels).lower().rstrip(".")
    rcode, answers = 3, b""  # NXDOMAIN
    if name in table:
        rcode = 0
        if qtype == 1:
            answers = (b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) +
                       socket.inet_aton(table[name]))
    header = struct.pack("!HHHHHH", qid, 0x8180 | (flags & 0x0100) | rcode,
                         1, 1 if answers else 0, 0, 0)
    return header + question + answers


def tcp_client(conn):
    with conn:
        while True:
            head = conn.recv(2)
            if len(head) < 2:
                return
            (n,) = struct.unpack("!H", head)
            query = b""
            while len(query) < n:
                chunk = conn.recv(n - len(query))
                if not chunk:
                    return
                query += chunk
            reply = answer(query)
            conn.sendall(struct.pack("!H", len(reply)) + reply)


def serve_tcp(s):
    while True:
        conn, _ = s.accept()
        threading.Thread(target=tcp_client, args=(conn,), daemon=True).start()


tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("127.0.0.1", port))
tcp.listen(16)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("127.0.0.1", port))
threading.Thread(target=serve_tcp, args=(tcp,), daemon=True).start()
with open(ready + ".tmp", "w") as f:
    f.write("%d\n" % port)
os.rename(ready + ".tmp", ready)
while True:
    query, peer = udp.recvfrom(512)
    udp.sendto(answer(query), peer)
