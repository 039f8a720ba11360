package io.taskfence;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.WithDefault;

/**
 * The leader-only jobs' settings ({@code taskfence.recovery.*}, {@code .schedules.*}, {@code .batches.*},
 * {@code .actions.*}, {@code .follow-ups.*}, {@code .retention.*}, {@code .history.*}): groups of {@link TaskfenceConfig}, in a file of
 * their own.
 */
public interface JobSettings {

    interface Recovery {
        /** How often recovery runs. */
        @WithDefault("10s")
        @DurationMin(nanos = 1)
        Duration interval();

        /** An ENQUEUED task older than this lost its queue message and goes back to PENDING. */
        @WithDefault("60s")
        @DurationMin(nanos = 1)
        Duration enqueuedTimeout();
    }

    interface Schedules {
        /** How often the schedules job looks for due occurrences (on the replica holding its lock). */
        @WithDefault("1s")
        @DurationMin(nanos = 1)
        Duration interval();

        /**
         * An occurrence due longer ago than this when the job comes to it was missed (the service was down):
         * its schedule's misfire policy decides whether it runs ({@code once}) or not ({@code skip}). Keep it
         * above the lock lease, so that an occurrence the job was late for because a replica died is not missed.
         */
        @WithDefault("60s")
        @DurationMin(nanos = 1)
        Duration misfireThreshold();
    }

    interface Batches {
        /**
         * How often the batches job folds the items' ends into their batches' counts and releases the then task of
         * each batch complete (on the replica holding its lock): the most a then task waits after the last item.
         */
        @WithDefault("1s")
        @DurationMin(nanos = 1)
        Duration interval();
    }

    interface FollowUps {
        /**
         * How often the follow-ups job looks for work that tasks' ends left (on the replica holding its lock) besides
         * being woken by each end this replica makes: the most a dependent or a callback waits after an end made by
         * SQL by hand or on a replica that stopped before it woke the job.
         */
        @WithDefault("1s")
        @DurationMin(nanos = 1)
        Duration interval();
    }

    interface Actions {
        /** How often the actions job works on the running bulk actions (on the replica holding its lock). */
        @WithDefault("1s")
        @DurationMin(nanos = 1)
        Duration interval();

        /** Tasks a bulk action moves in one fenced transaction. */
        @WithDefault("500")
        @Min(1)
        @Max(10_000)
        int batchSize();

        /**
         * Bulk actions one key may have running at once (DESIGN.md, "Bulk actions"); one more is refused 429 with
         * Retry-After. Each is a share of the actions job's time.
         */
        @WithDefault("5")
        @Min(1)
        @Max(1_000)
        int maxRunningPerKey();
    }

    /**
     * How long finished tasks, their history and {@code dispatch_log} rows are kept (DESIGN.md, "Configuration",
     * "Retention"): a fenced job on one replica deletes them in batches once they are older.
     */
    interface Retention {
        /** How often the retention job runs. */
        @WithDefault("1m")
        @DurationMin(nanos = 1)
        Duration interval();

        /** A SUCCEEDED task is deleted, with its events, this long after it succeeded. */
        @WithDefault("7d")
        @DurationMin(nanos = 1)
        Duration succeeded();

        /** A DEAD task is deleted, with its events, this long after it died (longer: someone may retry it). */
        @WithDefault("30d")
        @DurationMin(nanos = 1)
        Duration dead();

        /** A CANCELLED task is deleted, with its events, this long after it was cancelled. */
        @WithDefault("7d")
        @DurationMin(nanos = 1)
        Duration cancelled();

        /** A {@code dispatch_log} row is deleted this long after its batch was dispatched. */
        @WithDefault("1d")
        @DurationMin(nanos = 1)
        Duration dispatchLog();

        /** Rows deleted per statement (and transaction); a run repeats it until none is left or its time is up. */
        @WithDefault("1000")
        @Min(1)
        int batchSize();
    }

    interface History {
        /** How often the history job folds finished work into {@code work_history} (on the replica holding its lock). */
        @WithDefault("10s")
        @DurationMin(nanos = 1)
        Duration interval();

        /** How long the history is kept: per minute for its first day, per hour after that. */
        @WithDefault("14d")
        @DurationMin(hours = 1)
        Duration kept();

        /**
         * How long after a task's creation, or an event's writing, the job first reads it: a transaction that wrote an
         * earlier one but committed later than this is not passed over.
         */
        @WithDefault("30s")
        @DurationMin(nanos = 0)
        Duration settle();

        /** Rows read per statement (and transaction); a run repeats until it has caught up or its time is up. */
        @WithDefault("1000")
        @Min(1)
        int batchSize();
    }
}
