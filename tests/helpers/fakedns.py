#!/usr/bin/env python3
"""A DNS server for the egress tests' fake internet, started by the test in
a network namespace of its own; it never answers anything outside it.

    fakedns.py ADDR ZONEFILE LOGFILE READYFILE

ZONEFILE has one line a name: NAME ADDR[,ADDR...] (A or AAAA by the form);
NAME ADDR1|ADDR2 answers ADDR1 the first time and ADDR2 after (a name that
resolves differently the second time). The zone is read again at each
query, so that a test may add a name of its own. Every query is logged to LOGFILE,
one line "QTYPE NAME". Unknown names get NXDOMAIN. It writes "up" to
READYFILE (a FIFO) once it listens, and stops after 600 s at the latest."""
import ipaddress
import socket
import struct
import sys
import time

addr, zonefile, logfile, ready = sys.argv[1:5]
asked = {}


def read_zone():
    zone = {}
    for line in open(zonefile):
        if line.strip():
            name, addrs = line.split()
            zone[name.lower().rstrip(".")] = addrs
    return zone


s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((addr, 53))
with open(ready, "w") as f:
    f.write("up\n")
end = time.monotonic() + 600
s.settimeout(1)
while time.monotonic() < end:
    try:
        q, peer = s.recvfrom(4096)
    except socket.timeout:
        continue
    if len(q) < 12:
        continue
    qid, flags, qd = struct.unpack("!HHH", q[:6])
    at, labels = 12, []
    while at < len(q) and q[at]:
        labels.append(q[at + 1:at + 1 + q[at]].decode("ascii", "replace"))
        at += 1 + q[at]
    qtype = struct.unpack("!H", q[at + 1:at + 3])[0] if at + 3 <= len(q) else 0
    question = q[12:at + 5]
    name = ".".join(labels).lower()
    zone = read_zone()
    with open(logfile, "a") as log:
        log.write("%s %s\n" % ({1: "A", 28: "AAAA"}.get(qtype, str(qtype)), name))
    answers, rcode = [], 3
    if name in zone:
        rcode = 0
        spec = zone[name]
        if "|" in spec:
            first, later = spec.split("|")
            spec = later if asked.get(name) else first
            if qtype == 1:
                asked[name] = True
        for a in spec.split(","):
            ip = ipaddress.ip_address(a)
            if (ip.version == 4 and qtype == 1) or (ip.version == 6 and qtype == 28):
                answers.append(b"\xc0\x0c" + struct.pack("!HHIH", qtype, 1, 0, len(ip.packed)) + ip.packed)
    head = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1, len(answers), 0, 0)
    s.sendto(head + question + b"".join(answers), peer)
