"""One request to the daemon's web page inside the test machine; prints status and body.

    python3 page.py GET /api/state
    python3 page.py POST /api/button '{"button": "hint"}' --token-file /var/lib/magboard/web-token
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("method")
    parser.add_argument("path")
    parser.add_argument("body", nargs="?")
    parser.add_argument("--token")
    parser.add_argument("--token-file", type=Path)
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    headers = {"Content-Type": "application/json"}
    token = args.token or (args.token_file.read_text().strip() if args.token_file else None)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        f"http://127.0.0.1:{args.port}{args.path}",
        data=args.body.encode() if args.body is not None else None,
        headers=headers,
        method=args.method,
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, body = response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        status, body = exc.code, exc.read().decode()
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = body
    print(json.dumps({"status": status, "body": parsed}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
