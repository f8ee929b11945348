"""A local sweep worker process: ``python -m zonelab._worker`` serves run requests
on stdin/stdout (one JSON line each way) until stdin closes. Started by
``zonelab.sweep(executor="local")``; the CLI uses ``zonelab sweep-worker``."""

from ._native import serve_worker

if __name__ == "__main__":
    serve_worker()
