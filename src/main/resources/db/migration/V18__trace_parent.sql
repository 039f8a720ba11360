-- The W3C traceparent of the request that submitted the task (DESIGN.md, "Tracing"): every span of the task starts
-- from it. Null when tracing is off or the submission carried no trace (a schedule's occurrence), so a replica that
-- does not trace stores nothing; a column without a default is added without rewriting the table.
alter table tasks add column trace_parent text;
