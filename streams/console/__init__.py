"""The operator console: read-only HTML pages served by the worker's web server.

``/console`` shows this worker's queues with their depth per region, the last waves with
their summaries, the recent matches and dead letters; ``/console/ticket?id=`` a ticket's
life and ``/console/match?id=`` why a match was made, the same lines `wavematch explain`
prints (streams/audit/answers.py). Pages are rendered on the server from hand-written
HTML and CSS (streams/console/pages.py): nothing is fetched from elsewhere, no script
runs, and no secret is shown (dead letters are listed without their original bytes).
"""
