"""Starts a grandchild that calls setsid() (leaving the server's process group) and sleeps; its pid
goes to the file named by argv[1]. Then serves one tool."""

import os
import subprocess
import sys
import time

from rawserver import serve, tool

pid_file = sys.argv[1]
# The child forks the grandchild and exits at once, so the grandchild is orphaned while the
# server still runs; the grandchild leaves the group, closes our pipes and sleeps.
subprocess.run(
    [
        sys.executable,
        "-c",
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    for fd in (0, 1, 2):\n"
        "        os.close(fd)\n"
        f"    open({pid_file!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n",
    ],
    check=True,
)
# A second grandchild stays a child of the server, also in its own session.
subprocess.Popen(
    [
        sys.executable,
        "-c",
        "import os, sys, time; os.setsid(); open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)",
        pid_file + ".2",
    ],
    stdin=subprocess.DEVNULL,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
# Serve only once both grandchildren are running and have named themselves, so that the inspection
# cannot end (and kill them) before the test can know their pids.
deadline = time.monotonic() + 10
while not all(os.path.exists(path) and os.path.getsize(path) for path in (pid_file, pid_file + ".2")):
    if time.monotonic() > deadline:
        sys.exit("the grandchildren never wrote their pids")
    time.sleep(0.01)
serve([tool("ping")])
