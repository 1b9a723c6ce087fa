"""Where the probe's lines go: an appended file, or a TCP server that viewers connect to.

Both take whole lines (str without the newline). The TCP server never blocks the caller: each client
has a bounded queue drained by its own thread, and a line that does not fit is dropped for that client
and counted.
"""
import collections
import os
import queue
import socket
import threading

DEFAULT_HOST = "127.0.0.1"


def parse_out(out):
    """("file", path) or ("tcp", host, port) from the probe's out= argument; ValueError names out."""
    if isinstance(out, os.PathLike):
        out = os.fspath(out)
    if not isinstance(out, str) or not out:
        raise ValueError("out: expected a file path or tcp://HOST:PORT, got %r" % (out,))
    if "://" not in out:
        return ("file", out)
    scheme, _, rest = out.partition("://")
    if scheme != "tcp":
        raise ValueError("out: unknown scheme %r in %r (expected a file path or tcp://HOST:PORT)"
                         % (scheme, out))
    if rest.startswith("["):
        host, sep, port_text = rest[1:].partition("]:")
        if not sep:
            raise ValueError("out: expected tcp://[IPv6]:PORT, got %r" % (out,))
    else:
        host, sep, port_text = rest.rpartition(":")
        if not sep or ":" in host or "/" in rest:
            raise ValueError("out: expected tcp://HOST:PORT, got %r" % (out,))
    if not port_text.isdigit() or int(port_text) > 65535:
        raise ValueError("out: port must be 0..65535 in %r" % (out,))
    return ("tcp", host or DEFAULT_HOST, int(port_text))


def per_rank_file(path, rank):
    """run.jsonl -> run.rank1.jsonl (the suffix after the last dot stays last)."""
    directory, base = os.path.split(path)
    stem, suffix = os.path.splitext(base)
    return os.path.join(directory, "%s.rank%d%s" % (stem, rank, suffix))


class FileSink:
    """Appends lines to a file it creates; an existing file is an error unless overwrite is set."""

    def __init__(self, path, header, overwrite=False):
        self.path = path
        self.dropped = 0
        try:
            self._file = open(path, "w" if overwrite else "x", encoding="utf-8", newline="\n")
        except FileExistsError:
            raise FileExistsError("out: %s already exists (pass overwrite=True to replace it)" % path)
        self.write(header)

    def write(self, line):
        self._file.write(line)
        self._file.write("\n")
        self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def describe(self):
        return self.path


class _Client:
    def __init__(self, connection, backlog, capacity):
        self.connection = connection
        self.backlog = backlog
        self.queue = queue.Queue(maxsize=capacity)
        self.dropped = 0
        self.alive = True
        self.thread = None


_STOP = object()


class TcpSink:
    """Listens on host:port; every client gets the header, the kept history, then live lines."""

    def __init__(self, host, port, header, history=10000, queue_lines=1024):
        self.dropped = 0
        self._header = header
        self._history = collections.deque(maxlen=history) if history > 0 else None
        self._capacity = max(1, queue_lines)
        self._clients = []
        self._lock = threading.Lock()
        self._closing = False
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._server = socket.socket(family, socket.SOCK_STREAM)
        try:
            self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._server.bind((host, port))
            self._server.listen(8)
        except OSError as error:
            self._server.close()
            raise OSError(error.errno, "out: cannot listen on %s:%d: %s" % (host, port, error.strerror))
        self.address = self._server.getsockname()[:2]
        self._acceptor = threading.Thread(target=self._accept_loop, name="ampscope-probe-accept",
                                          daemon=True)
        self._acceptor.start()

    def describe(self):
        host, port = self.address
        return "tcp://%s:%d" % ("[%s]" % host if ":" in host else host, port)

    def write(self, line):
        data = (line + "\n").encode("utf-8")
        with self._lock:
            if self._history is not None:
                self._history.append(data)
            for client in self._clients:
                try:
                    client.queue.put_nowait(data)
                except queue.Full:
                    client.dropped += 1
                    self.dropped += 1

    def _accept_loop(self):
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return  # the server socket was closed
            with self._lock:
                if self._closing:
                    connection.close()
                    return
                backlog = list(self._history) if self._history is not None else []
                client = _Client(connection, backlog, self._capacity)
                self._clients.append(client)
                client.thread = threading.Thread(target=self._serve, args=(client,),
                                                 name="ampscope-probe-client", daemon=True)
                client.thread.start()

    def _serve(self, client):
        try:
            client.connection.sendall((self._header + "\n").encode("utf-8"))
            for data in client.backlog:
                client.connection.sendall(data)
            client.backlog = None
            while True:
                data = client.queue.get()
                if data is _STOP:
                    break
                client.connection.sendall(data)
        except OSError:
            pass  # the viewer went away; it may reconnect and get the history again
        finally:
            with self._lock:
                if client in self._clients:
                    self._clients.remove(client)
            client.alive = False
            try:
                client.connection.close()
            except OSError:
                pass

    def close(self, timeout=2.0):
        """Stops accepting; gives each client up to `timeout` seconds to take what is queued."""
        with self._lock:
            self._closing = True
            clients = list(self._clients)
        try:
            # shutdown() wakes the accept thread on Linux; close() alone may leave it blocked.
            self._server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._server.close()
        for client in clients:
            try:
                client.connection.settimeout(timeout)
            except OSError:
                pass
            while True:
                try:
                    client.queue.put_nowait(_STOP)
                    break
                except queue.Full:
                    try:
                        client.queue.get_nowait()  # a line this viewer will not get: make room
                        client.dropped += 1
                        self.dropped += 1
                    except queue.Empty:
                        pass
        for client in clients:
            if client.thread is not None:
                client.thread.join(timeout)
                if client.thread.is_alive():
                    try:  # a viewer that stopped reading: cut it off, which ends its blocked send
                        client.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    client.thread.join(1.0)
        self._acceptor.join(1.0)
