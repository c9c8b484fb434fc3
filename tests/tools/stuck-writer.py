#!/usr/bin/env python3
"""Runs a command whose output FILE is a FIFO nobody reads, so that it stays
stuck in a write, then does one thing to it and says what became of it.

stuck-writer.py FIFO ACTION CMD...: makes FIFO (it must not exist), holds
it open read-write with a 4 KiB pipe (so more than 4 KiB of output blocks),
runs CMD, waits (10 s at most) until the pipe is full, then ACTION:

  term        SIGTERM to CMD's process
  kill        SIGKILL to CMD's process
  usr1-child  SIGUSR1 to CMD's process's child

Prints "status S children C left L": S CMD's exit status as Popen gives it
(-N: killed by signal N; "stuck" when it did not end in 10 s), C how many
children it had when the pipe was full, L how many of them were still alive
5 s after (at most) it ended. "never-full" when the pipe did not fill."""
import fcntl, os, signal, subprocess, sys, termios, time
import array

F_SETPIPE_SZ = 1031
fifo, action, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
os.mkfifo(fifo)
fd = os.open(fifo, os.O_RDWR)
fcntl.fcntl(fd, F_SETPIPE_SZ, 4096)
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def pending():
    n = array.array('i', [0])
    fcntl.ioctl(fd, termios.FIONREAD, n)
    return n[0]


def children(pid):
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().split(') ')[-1][0] != 'Z'
    except OSError:
        return False


end = time.time() + 10
while pending() < 4096 and p.poll() is None and time.time() < end:
    time.sleep(0.02)
if pending() < 4096:
    p.kill()
    p.wait()
    print('never-full')
    sys.exit(0)
time.sleep(0.1)  # the writer is in its write now
kids = children(p.pid)
if action == 'term':
    p.send_signal(signal.SIGTERM)
elif action == 'kill':
    p.send_signal(signal.SIGKILL)
elif action == 'usr1-child':
    for k in kids:
        os.kill(k, signal.SIGUSR1)
try:
    status = p.wait(timeout=10)
except subprocess.TimeoutExpired:
    status = 'stuck'
    p.kill()
    p.wait()
end = time.time() + 5
while any(alive(k) for k in kids) and time.time() < end:
    time.sleep(0.02)
print('status %s children %d left %d' % (status, len(kids), sum(alive(k) for k in kids)))
