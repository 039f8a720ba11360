package io.taskfence.queue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.quarkus.redis.datasource.RedisDataSource;
import io.quarkus.redis.datasource.stream.StreamCommands;
import io.quarkus.redis.datasource.stream.XGroupCreateArgs;
import io.quarkus.redis.datasource.stream.XReadGroupArgs;
import io.taskfence.lock.FencedLease;
import io.taskfence.lock.LockSettings;
import io.taskfence.lock.LuaScript;
import io.taskfence.signals.SignalChannel;
import io.vertx.mutiny.redis.client.Response;

/**
 * The Redis Streams that carry task ids from dispatch to the workers (DESIGN.md, "Queue (Redis)"): one read by every
 * replica's own workers, and one per remote type, read by the worker API on remote workers' behalf (DESIGN.md,
 * "Remote workers"); each through one consumer group. The table, not the stream, is the truth: a message only says
 * which task to try to claim, and a lost one costs latency (recovery re-dispatches), never the task.
 */
@ApplicationScoped
public class TaskQueue {

    /** The lock dispatch holds while it pushes; the stream shares its hash tag. */
    public static final String DISPATCH_LOCK = "dispatch";
    /** The consumer group all replicas' workers read through. */
    public static final String GROUP = "workers";

    private static final Logger LOG = Logger.getLogger(TaskQueue.class);

    private static final int PAGE = 1000;

    /**
     * One message: the stream entry's id and the tasks it names, one or several; none if the entry names
     * none that can be read (written by something else), so that it is acknowledged and deleted all the same.
     */
    public record Message(String id, List<UUID> taskIds) {
        public Message {
            taskIds = List.copyOf(taskIds);
        }
    }

    private final RedisDataSource redis;
    private final StreamCommands<String, String, String> streams;
    private final String stream;
    /** Where the remote types' streams' names start: the type follows. */
    private final String remoteStreamPrefix;
    /** The channel that tells the replicas which remote type's stream was pushed to. */
    private final SignalChannel claimable;
    private final LuaScript push = LuaScript.load("queue/push.lua");
    private final LuaScript done = LuaScript.load("queue/done.lua");

    TaskQueue(RedisDataSource redis, LockSettings settings) {
        this.redis = redis;
        this.streams = redis.stream(String.class);
        this.stream = settings.keyPrefix() + ":queue:{" + DISPATCH_LOCK + "}";
        this.remoteStreamPrefix = stream + ":remote:";
        this.claimable = new SignalChannel(redis, claimableChannel(settings.keyPrefix()));
    }

    /** The channel on which each push to a remote type's stream is announced, with the type as the message. */
    public static String claimableChannel(String keyPrefix) {
        return keyPrefix + ":claimable";
    }

    /**
     * Appends the ids, in order, {@code perEntry} to a stream entry (the last entry takes the rest), if
     * {@code lease} (of {@link #DISPATCH_LOCK}) still holds the lock.
     *
     * @return false if the lease no longer holds it: nothing was pushed
     */
    public boolean push(FencedLease lease, List<UUID> taskIds, int perEntry) {
        return push(lease, stream, taskIds, perEntry);
    }

    /**
     * Appends the ids, in order, one to an entry, to the stream of the remote type {@code type}, if {@code lease} still
     * holds the dispatch lock; then announces the push on the claimable channel (fire-and-forget: a remote claim that
     * waits looks again within a second without it).
     *
     * @return false if the lease no longer holds it: nothing was pushed
     */
    public boolean pushRemote(FencedLease lease, String type, List<UUID> taskIds) {
        if (!push(lease, remoteStream(type), taskIds, 1)) {
            return false;
        }
        claimable.publish(type);
        return true;
    }

    private boolean push(FencedLease lease, String stream, List<UUID> taskIds, int perEntry) {
        if (taskIds.isEmpty()) {
            return true;
        }
        List<String> args = new ArrayList<>();
        args.add(lease.holder());
        args.addAll(QueueEntries.values(taskIds, perEntry));
        try {
            return push.run(redis, List.of(lease.lockKey(), stream), args.toArray(String[]::new)).toLong() >= 0;
        } catch (RuntimeException e) {
            throw new QueueUnavailableException("queue/push.lua", e);
        }
    }

    /** Creates the stream and the consumer group if either is missing (first start, or Redis lost them). */
    public void ensureGroup() {
        ensureGroup(stream);
    }

    private void ensureGroup(String stream) {
        try {
            streams.xgroupCreate(stream, GROUP, "0", new XGroupCreateArgs().mkstream());
        } catch (RuntimeException e) {
            if (e.getMessage() == null || !e.getMessage().contains("BUSYGROUP")) {
                throw e;
            }
        }
    }

    /** Up to {@code count} new entries for {@code consumer}, waiting at most {@code block} for the first. */
    public List<Message> read(String consumer, int count, Duration block) {
        try {
            return QueueEntries.messages(streams.xreadgroup(GROUP, consumer, stream, ">",
                    new XReadGroupArgs().count(count).block(block)));
        } catch (RuntimeException e) {
            if (e.getMessage() != null && e.getMessage().contains("NOGROUP")) {
                LOG.info("the queue's consumer group is missing (Redis lost it?); creating it again");
                ensureGroup();
                return List.of();
            }
            throw e;
        }
    }

    /**
     * Up to {@code count} new entries of the remote type {@code type}'s stream for {@code consumer}, without waiting
     * (a waiting claim is woken by the claimable channel instead: a blocked read would hold a pooled connection).
     */
    public List<Message> readRemote(String type, String consumer, int count) {
        String remote = remoteStream(type);
        try {
            return QueueEntries.messages(streams.xreadgroup(GROUP, consumer, remote, ">",
                    new XReadGroupArgs().count(count)));
        } catch (RuntimeException e) {
            if (e.getMessage() != null && e.getMessage().contains("NOGROUP")) {
                ensureGroup(remote); // the type's first read, or Redis lost the group
                return QueueEntries.messages(streams.xreadgroup(GROUP, consumer, remote, ">",
                    new XReadGroupArgs().count(count)));
            }
            throw new QueueUnavailableException("XREADGROUP " + type, e);
        }
    }

    /**
     * Takes over, for {@code consumer}, up to {@code count} entries that other consumers read but did not
     * finish within {@code minIdle} (their replica died between reading and claiming), each with all its ids.
     */
    public List<Message> reclaim(String consumer, Duration minIdle, int count) {
        return reclaim(stream, consumer, minIdle, count);
    }

    /** {@link #reclaim} in the remote type {@code type}'s stream. */
    public List<Message> reclaimRemote(String type, String consumer, Duration minIdle, int count) {
        return reclaim(remoteStream(type), consumer, minIdle, count);
    }

    private List<Message> reclaim(String stream, String consumer, Duration minIdle, int count) {
        try {
            return QueueEntries.messages(
                    streams.xautoclaim(stream, GROUP, consumer, minIdle, "0-0", count).getMessages());
        } catch (RuntimeException e) {
            if (e.getMessage() != null && e.getMessage().contains("NOGROUP")) {
                return List.of();
            }
            throw e;
        }
    }

    /** The messages have been handled (their claims committed or were refused): acknowledge and delete them. */
    public void done(List<Message> messages) {
        done(stream, messages);
    }

    /** {@link #done} for messages read from the remote type {@code type}'s stream. */
    public void doneRemote(String type, List<Message> messages) {
        done(remoteStream(type), messages);
    }

    private void done(String stream, List<Message> messages) {
        if (messages.isEmpty()) {
            return;
        }
        String[] args = new String[messages.size() + 1];
        args[0] = GROUP;
        for (int i = 0; i < messages.size(); i++) {
            args[i + 1] = messages.get(i).id();
        }
        done.run(redis, List.of(stream), args);
    }

    /** Removes {@code consumer} from the group if it has no unfinished messages; true if it did. */
    public boolean leave(String consumer) {
        return leave(stream, consumer);
    }

    /** {@link #leave} of the remote type {@code type}'s stream's group; true also if the stream has no group. */
    public boolean leaveRemote(String type, String consumer) {
        try {
            return leave(remoteStream(type), consumer);
        } catch (RuntimeException e) {
            if (e.getMessage() != null && (e.getMessage().contains("NOGROUP") || e.getMessage().contains("no such key"))) {
                return true;
            }
            throw e;
        }
    }

    private boolean leave(String stream, String consumer) {
        for (Response entry : redis.execute("XINFO", "CONSUMERS", stream, GROUP)) {
            if (consumer.equals(entry.get("name").toString()) && entry.get("pending").toLong() > 0) {
                return false;
            }
        }
        streams.xgroupDelConsumer(stream, GROUP, consumer);
        return true;
    }

    /**
     * The tasks whose messages are in the stream: pushed and not yet done. Dispatch keeps the stream short
     * ({@code taskfence.dispatch.max-queue-depth}), so reading it whole is cheap.
     */
    public Set<UUID> queuedTaskIds() {
        return queuedTaskIds(stream);
    }

    /** {@link #queuedTaskIds()} of the replicas' stream and of the remote types' streams, together. */
    public Set<UUID> queuedTaskIds(Set<String> remoteTypes) {
        Set<UUID> ids = queuedTaskIds(stream);
        remoteTypes.forEach(type -> ids.addAll(queuedTaskIds(remoteStream(type))));
        return ids;
    }

    private Set<UUID> queuedTaskIds(String stream) {
        Set<UUID> ids = new HashSet<>();
        String from = "-";
        while (true) {
            Response page;
            try {
                page = redis.execute("XRANGE", stream, from, "+", "COUNT", Integer.toString(PAGE));
            } catch (RuntimeException e) {
                throw new QueueUnavailableException("XRANGE", e);
            }
            for (Response entry : page) {
                Response fields = entry.get(1);
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    ids.addAll(QueueEntries.taskIds(entry.get(0).toString(), fields.get(i).toString(),
                            fields.get(i + 1).toString()));
                }
            }
            if (page.size() < PAGE) {
                return ids;
            }
            from = "(" + page.get(page.size() - 1).get(0).toString();
        }
    }

    /** Entries in the stream (XLEN): pushed and not yet done. Each names up to the pusher's tasks per entry. */
    public long depth() {
        return depth(stream);
    }

    /** {@link #depth()} of the remote type {@code type}'s stream, each entry one task. */
    public long depthRemote(String type) {
        return depth(remoteStream(type));
    }

    private long depth(String stream) {
        try {
            return redis.execute("XLEN", stream).toLong();
        } catch (RuntimeException e) {
            throw new QueueUnavailableException("XLEN", e);
        }
    }

    /**
     * Messages that a worker has read and not yet finished (XPENDING's count for the workers' group);
     * 0 while the stream or the group does not exist (before the first worker started, or after Redis lost
     * them).
     */
    public long pending() {
        try {
            return streams.xpending(stream, GROUP).getPendingCount();
        } catch (RuntimeException e) {
            if (e.getMessage() != null && e.getMessage().contains("NOGROUP")) {
                return 0;
            }
            throw e;
        }
    }

    /** The consumers in the workers' group, one per replica that has read. */
    public List<String> consumers() {
        List<String> names = new ArrayList<>();
        try {
            for (Response consumer : redis.execute("XINFO", "CONSUMERS", stream, GROUP)) {
                names.add(consumer.get("name").toString());
            }
        } catch (RuntimeException e) {
            if (e.getMessage() == null || !(e.getMessage().contains("NOGROUP") || e.getMessage().contains("no such key"))) {
                throw new QueueUnavailableException("XINFO CONSUMERS", e);
            }
        }
        return names;
    }

    private String remoteStream(String type) {
        return remoteStreamPrefix + type;
    }
}
