package io.taskfence;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

import org.hibernate.validator.constraints.time.DurationMin;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The service's own settings, {@code taskfence.*} (DESIGN.md, "Configuration"). Each key also reads from its
 * environment variable, e.g. {@code TASKFENCE_LOCK_LEASE}.
 */
@ConfigMapping(prefix = "taskfence")
public interface TaskfenceConfig {

    /** This replica's name in logs, stats and lock owners; the pod or host name when unset. */
    Optional<String> replicaId();

    /**
     * First segment of every Redis key and channel this service uses. Replicas of one deployment
     * share it; separate deployments (or test runs) on one Redis use different ones.
     */
    @WithDefault("taskfence")
    String keyPrefix();

    Lock lock();

    Dispatch dispatch();

    Worker worker();

    JobSettings.Recovery recovery();

    JobSettings.Schedules schedules();

    JobSettings.Retention retention();

    JobSettings.Batches batches();

    JobSettings.Actions actions();

    JobSettings.FollowUps followUps();

    JobSettings.History history();

    Retry retry();

    Http http();

    Handlers handlers();

    Auth auth();

    ApiSettings api();

    /**
     * The longest a fenced job's statement waits for a row lock another transaction (a client's request) holds
     * ({@code lock_timeout}): past it the job leaves those rows for its next run instead of waiting on.
     */
    @WithDefault("2s")
    @DurationMin(millis = 1)
    Duration jobLockTimeout();

    /**
     * Settings per task type, {@code taskfence.types.<type>.*}: whether it runs on remote workers, and global
     * limits held across all replicas by dispatch (DESIGN.md, "Configuration", "Type limits"). A type named here
     * must have a handler or be remote, else the start fails.
     */
    Map<String, Type> types();

    interface Type {
        /**
         * Whether the type's tasks are run by workers outside the service, which claim them through the worker API
         * (DESIGN.md, "Remote workers"); such a type has no handler here.
         */
        @WithDefault("false")
        boolean remote();

        /** A JSON Schema (draft 2020-12, inline) the type's payloads must meet at submission; none: any object. */
        Optional<String> schema();

        /** {@link #schema()} read from this file instead (e.g. a mounted ConfigMap). */
        Optional<String> schemaFile();

        /** At most this many tasks of the type ENQUEUED or PROCESSING at once; none: unlimited. At least 1. */
        OptionalInt maxConcurrency();

        /** At most this many of the type started a second or a minute, {@code <n>/s} or {@code <n>/m}; none: unlimited. */
        Optional<String> rate();

        /**
         * At most this many tasks of one concurrency group (the type's tasks of one owner with one
         * {@code concurrencyKey}) ENQUEUED, PROCESSING or waiting to run again (FAILED, or PENDING after a "later"
         * or a lost message) at once; none: unlimited. At least 1; 1 runs a group's tasks one after another in
         * submission order.
         */
        OptionalInt maxPerKey();

        /**
         * At most this many tasks of one concurrency group started a second or a minute, {@code <n>/s} or
         * {@code <n>/m} (e.g. calls to each customer's API); none: unlimited. Tasks without a {@code concurrencyKey}
         * are in no group and not held by it.
         */
        Optional<String> ratePerKey();

        /**
         * The longest one attempt of the type's tasks may take (DESIGN.md, "Task lifecycle", "Attempt time-outs"): a
         * local handler is then interrupted, a remote claim superseded, and the attempt fails "timed out after ..."; a
         * task's own {@code timeout} may be shorter. Fixed in each task when it is stored. None: no limit.
         */
        Optional<Duration> timeout();
    }

    interface Lock {
        /** Lease of the job locks; the watchdog renews it at a third of this while the job runs. */
        @WithDefault("30s")
        @DurationMin(nanos = 1)
        Duration lease();
    }

    interface Dispatch {
        /** Whether this replica takes part in dispatching (it runs only while it holds the lock). */
        @WithDefault("true")
        boolean enabled();

        /** How often dispatch runs; a submission also starts a run at once. */
        @WithDefault("1s")
        @DurationMin(nanos = 1)
        Duration interval();

        /** Tasks moved to the queue per transaction. */
        @WithDefault("500")
        int batchSize();

        /**
         * Messages the queue may hold before dispatch waits for the workers: tasks stay PENDING (where a
         * higher priority still counts) rather than line up in the stream, and recovery can read it whole.
         */
        @WithDefault("1000")
        int maxQueueDepth();

        /**
         * Task ids a queue message carries, at most: more means fewer stream entries to add, read and delete
         * per task, and a replica that reads a message claims all its tasks (over its free slots if need be).
         */
        @WithDefault("1")
        @Min(1)
        @Max(100)
        int tasksPerEntry();
    }

    interface Worker {
        /** Whether this replica runs tasks. */
        @WithDefault("true")
        boolean enabled();

        /** Handlers running at once on this replica. */
        @WithDefault("8")
        @Min(1)
        int concurrency();

        /**
         * Tasks claimed beyond those running, each waiting for a worker with its lease held: a worker that
         * finishes a short task finds the next one claimed, and one claim statement serves more tasks. None
         * by default: a task claimed here waits behind this replica's running ones even when another replica
         * is idle, which only pays when tasks are short (three times the concurrency suits those).
         */
        @WithDefault("0")
        @Min(0)
        int claimAhead();

        /** Processing lease of a claimed task, extended by a heartbeat at a third of it. */
        @WithDefault("60s")
        @DurationMin(nanos = 1)
        Duration lease();

        /**
         * On shutdown, how long running handlers may take to finish; the tasks of those still running
         * then go back to PENDING. Keep it below the pod's termination grace period.
         */
        @WithDefault("20s")
        Duration drainTimeout();
    }

    interface Http {
        /**
         * Destinations the {@code http} handler may call, each {@code http(s)://host[:port]} (no port: the
         * scheme's default); a URL passes only if its scheme, host and port match one exactly (host names
         * case-insensitively, no wildcards, so that an entry cannot match more than meant). A name must resolve
         * to public addresses only; an address that is loopback, private, link-local and the like is called
         * only when an entry names it literally. A malformed entry stops the start. None means it may call none.
         */
        Optional<List<String>> allowedHosts();

        /** How long one call of the {@code http} handler may take, from connecting to the answer's last byte. */
        @WithDefault("30s")
        @DurationMin(nanos = 1)
        Duration timeout();
    }

    interface Retry {
        /** Attempts of a task that names none (and of a callback that names none): 1 to 100, as a task may ask. */
        @WithDefault("5")
        @Min(1)
        @Max(100)
        int maxAttempts();

        /** Backoff after the first failed attempt; it doubles each attempt, with full jitter. */
        @WithDefault("1s")
        @DurationMin(nanos = 1)
        Duration backoffBase();

        /** The longest backoff. */
        @WithDefault("10m")
        @DurationMin(nanos = 1)
        Duration backoffCap();
    }

    interface Handlers {
        Demo demo();

        interface Demo {
            /**
             * Whether the demonstration handlers {@code sleep} and {@code flaky} take tasks. Off in production:
             * a client could otherwise hold workers for an hour a task, or fill the table with failures.
             * Read by their {@code @LookupIfProperty}; here so that the key is known and documented.
             */
            @WithDefault("false")
            boolean enabled();
        }
    }

    interface Auth {
        /**
         * When false every request may do everything and tasks have no owner: for local trials only. Warned
         * about at start, and refused in the prod profile unless {@link #allowDisabledInProd()} says so.
         */
        @WithDefault("true")
        boolean enabled();

        /** The explicit second switch that lets the prod profile start with {@code enabled=false}. */
        @WithDefault("false")
        boolean allowDisabledInProd();

        /**
         * The API keys by name ({@code taskfence.auth.keys.<name>.secret}, {@code .role}); a name matches
         * {@code [a-z0-9]{1,32}} and becomes the owner of the tasks its key submits (DESIGN.md, "Configuration").
         */
        Map<String, Key> keys();

        /** Unfinished tasks a key may have at once, for the keys that name no limit of their own; none: unlimited. */
        OptionalInt maxUnfinished();

        /**
         * Requests a key may make ({@code <n>/s} or {@code <n>/m}; a batch counts its tasks), for the keys that
         * name no rate of their own; none: unlimited (DESIGN.md, "REST API", "Request rates").
         */
        Optional<String> rate();

        interface Key {
            /** The key itself, as sent in {@code Authorization: Bearer}; never logged. */
            Optional<String> secret();

            /**
             * {@code submit}: its own tasks only; {@code admin}: every task, and stats; {@code worker}: claims and
             * runs tasks of the remote types it names in {@link #types()}, and nothing else.
             */
            @WithDefault("submit")
            String role();

            /**
             * For a {@code worker} key, the remote task types it may claim, or {@code *} for every one (also those
             * declared through the API); required for one, refused for others.
             */
            Optional<List<String>> types();

            /** Unfinished tasks (WAITING, PENDING, ENQUEUED, PROCESSING, FAILED) this key may have at once. */
            OptionalInt maxUnfinished();

            /**
             * This key's share of each dispatch batch against other keys with due tasks, 1 to 100: a key of
             * weight 3 gets three tasks to every one of a key of weight 1 (DESIGN.md, "Dispatch", "Fair shares").
             */
            @WithDefault("1")
            int weight();

            /**
             * The highest {@code priority} this key's tasks may ask for (0 to 1000); none: 1000. Priority orders
             * a key's own tasks only: dispatch shares between keys first.
             */
            OptionalInt maxPriority();

            /** Requests this key may make ({@code <n>/s} or {@code <n>/m}; a batch counts its tasks). */
            Optional<String> rate();

            /**
             * The destinations this key's {@code http} tasks may call: entries of {@code taskfence.http.allowed-hosts},
             * written the same way; an entry that list lacks stops the start. None: all of that list.
             */
            Optional<List<String>> allowedHosts();

            /**
             * What this key's callbacks are signed with (DESIGN.md, "Callbacks"): {@code whsec_} and base64, as
             * Standard Webhooks writes it. None: one derived from {@link #secret()} (decision 0027).
             */
            Optional<String> callbackSecret();
        }
    }
}
