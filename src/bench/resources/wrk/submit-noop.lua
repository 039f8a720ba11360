-- wrk's request for SubmitBenchIT: one noop task per POST. The API key comes from the command line (-H), so
-- that this file holds no secret and every request is formatted once, by wrk itself, and reused as is.
wrk.method = "POST"
wrk.body = '{"type":"noop","payload":{}}'
wrk.headers["Content-Type"] = "application/json"
