"""check-probe.py JSON ABI: compare the output of `sharness-exec probe --json`
(in the file JSON) with what this process can see for itself, by its own
means; ABI is what `try-syscall landlock-abi` printed (0: none). Run it under
the same identity as the probe. Prints one line per mismatch; exit 1 if any.
"""
import gzip
import os
import re
import shutil
import subprocess
import sys

import json

with open(sys.argv[1], encoding="utf-8") as f:
    raw = f.read()
d = json.loads(raw)
abi = int(sys.argv[2])
bad = []


def eq(name, got, want):
    if got != want:
        bad.append(f"{name}: probe says {got!r}, the test sees {want!r}")


def status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out


st = status()
eq("probe", d["probe"], 1)
eq("kernel", d["kernel"], os.uname().release)
eq("uid", d["uid"], os.getuid())
eq("gid", d["gid"], os.getgid())
eq("groups", sorted(d["groups"]), sorted(os.getgroups()))
eq("cap_eff", d["cap_eff"], st["CapEff"])
eq("cap_prm", d["cap_prm"], st["CapPrm"])
eq("cap_bnd", d["cap_bnd"], st["CapBnd"])
eq("no_new_privs", d["no_new_privs"], st["NoNewPrivs"] == "1")
eq("seccomp", d["seccomp"], int(st["Seccomp"]))

eq("landlock.abi", d["landlock"]["abi"], abi)
if abi:
    eq("landlock.status", d["landlock"]["status"], "available")
    eq("landlock.errno", d["landlock"]["errno"], None)
else:
    if d["landlock"]["status"] == "available":
        bad.append("landlock.status: available, but try-syscall found no ABI")


def works(*argv):
    return subprocess.run(argv, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


# The chain's namespace step unshares directly where it may, else inside a
# user namespace; the view's mount namespace comes with the same rights.
if shutil.which("unshare"):
    if works("unshare", "--net", "true"):
        how = "direct"
    elif works("unshare", "--user", "--map-current-user", "--net", "true"):
        how = "userns"
    else:
        how = None
    eq("netns.how", d["netns"]["how"], how)
    eq("netns.ok", d["netns"]["ok"], how is not None)
    eq("userns.ok", d["userns"]["ok"], how == "userns")
    if how is None and d["netns"]["errno"] is None:
        bad.append("netns.errno: null although no namespace could be made")
    w = d["walls"]
    eq("walls.network", w["network"], "namespace" if how else "seccomp")
    eq("walls.ipc", w["ipc"], "namespace" if how else "shared")
    eq("walls.pid", w["pid"], "namespace" if how else "subreaper")
    eq("walls.mount", w["mount"], "namespace" if how else "none")
    # Without a mount namespace a root caller's strict run is refused.
    eq("walls.strict is set", w["strict"] is not None, how is None and os.getuid() == 0)

w = d["walls"]
if abi:
    eq("walls.landlock_abi", w["landlock_abi"], abi)
    eq("walls.seccomp", w["seccomp"], 2)
    eq("walls.no_new_privs", w["no_new_privs"], 1)
    eq("walls.caps", w["caps"], "none")
    eq("walls.scoped", w["scoped"], "signal,abstract_unix" if abi >= 6 else "none")


# cgroups: our own reading of mountinfo and /proc/self/cgroup.
def unescape(s):
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), s)


mounts = {}
with open("/proc/self/mountinfo") as f:
    for line in f:
        pre, _, post = line.partition(" - ")
        fields, tail = pre.split(), post.split()
        root, mnt, fstype, opts = unescape(fields[3]), unescape(fields[4]), tail[0], tail[2]
        if fstype == "cgroup2":
            mounts.setdefault("v2", (root, mnt))
        elif fstype == "cgroup":
            for c in ("memory", "pids"):
                if c in opts.split(","):
                    mounts.setdefault(c, (root, mnt))
own = {}
with open("/proc/self/cgroup") as f:
    for line in f:
        hid, ctrls, path = line.rstrip("\n").split(":", 2)
        if hid == "0" and ctrls == "":
            own.setdefault("v2", path)
        for c in ctrls.split(","):
            if c in ("memory", "pids"):
                own.setdefault(c, path)


def own_dir(key):
    if key not in mounts or key not in own:
        return None
    root, mnt = mounts[key]
    path = own[key]
    if root != "/" and (path == root or path.startswith(root + "/")):
        path = path[len(root):]
    return mnt + ("" if path in ("", "/") else path)


def controllers(directory):
    try:
        with open(os.path.join(directory, "cgroup.controllers")) as f:
            return f.read().split()
    except OSError:
        return []


v2dir = own_dir("v2")
used = set()
for c in ("memory", "pids"):
    v1dir = own_dir(c)
    if v2dir and os.access(v2dir, os.W_OK) and c in controllers(v2dir):
        want = ("cgroup2", v2dir)
    elif v1dir and os.access(v1dir, os.W_OK):
        want = ("cgroup1", v1dir)
    else:
        want = ("rlimit", None)
    used.add(want[0])
    eq(f"cgroup.{c}", (d["cgroup"][c], d["cgroup"][c + "_path"]), want)
# The hierarchy the supervise step used for the caps.
eq("cgroup.version", d["cgroup"]["version"],
   "v2" if "cgroup2" in used else "v1" if "cgroup1" in used else "none")

if not isinstance(d["memfd_secret"]["ok"], bool):
    bad.append("memfd_secret.ok is not a boolean")

# The kernel config, read with Python's own gzip.
keys = ["CONFIG_SECURITY_LANDLOCK", "CONFIG_USER_NS", "CONFIG_NET_NS", "CONFIG_CGROUPS",
        "CONFIG_MEMCG", "CONFIG_CGROUP_PIDS", "CONFIG_SECCOMP_FILTER", "CONFIG_LSM"]
kc = d["kernel_config"]
if os.access("/proc/config.gz", os.R_OK) and shutil.which("gzip"):
    eq("kernel_config.source", kc["source"], "/proc/config.gz")
    with gzip.open("/proc/config.gz", "rt") as f:
        text = f.read()
    for k in keys:
        m = re.search(r"^" + k + r"=(.*)$", text, re.M)
        want = m.group(1).strip('"') if m else "n"
        eq("kernel_config." + k, kc[k], want)
elif kc["source"] is None:
    for k in keys:
        eq("kernel_config." + k, kc[k], None)

for t in ("bwrap", "unshare", "systemd-run"):
    eq("tools." + t, d["tools"][t], shutil.which(t))

names = sorted(n for n in os.environ if n.lower().endswith("_proxy") and len(n) > 6)
eq("proxy_variables", d["proxy_variables"], names)
for n in names:
    v = os.environ[n]
    if len(v) >= 4 and v in raw:
        bad.append(f"the value of {n} appears in the output")

e = d["enforce"]
eq("enforce.files", e["files"], abi > 0)
eq("enforce.tcp_ports", e["tcp_ports"], abi >= 4)
eq("enforce.scopes", e["scopes"], abi >= 6)
eq("enforce.udp_ports", e["udp_ports"], abi >= 10)
eq("enforce.pathname_sockets", e["pathname_sockets"], abi >= 9)
# This test runs under no seccomp filter of its own that forbids another.
eq("enforce.mptcp_closed", e["mptcp_closed"], True)
kv = tuple(int(x) for x in re.match(r"(\d+)\.(\d+)", os.uname().release).groups())
eq("enforce.listen_guard", e["listen_guard"], kv >= (6, 3))
eq("landlock.errata is an integer from ABI 7", isinstance(d["landlock"]["errata"], int), abi >= 7)
eq("enforce.network_none", e["network_none"], "netns" if d["netns"]["ok"] else "seccomp")
eq("enforce.loopback", e["loopback"], d["netns"]["ok"])
eq("enforce.memory", e["memory"], d["cgroup"]["memory"])
eq("enforce.pids", e["pids"], d["cgroup"]["pids"])

for line in bad:
    print(line)
sys.exit(1 if bad else 0)
