package io.taskfence.history;

import java.time.Instant;

/** One row's key: a series (a type and an owner, {@link HistoryRows#ALL} for all of either) and its bucket's start. */
record SeriesBucket(String type, String owner, Instant bucket) {
}
