package io.taskfence.task.submit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.keys.KeyDirectory;
import io.taskfence.keys.KeySettings;
import io.taskfence.task.submit.outcome.OverQuota;
import io.taskfence.task.submit.outcome.Submitted;

/**
 * How many unfinished tasks (WAITING, PENDING, ENQUEUED, PROCESSING, FAILED) each API key may have at once: its own
 * {@code taskfence.auth.keys.<name>.max-unfinished}, else {@code taskfence.auth.max-unfinished}, else no
 * limit (DESIGN.md, "Configuration", "Quotas"). Everything that makes a key's task unfinished (a submission, a
 * retry) first counts under {@link #lockAndCount}.
 */
@ApplicationScoped
public class Quotas {

    /**
     * An owner's unfinished tasks, at most {@code ?} of them: its rows in the side tables of due, in-flight and
     * waiting tasks ({@code tasks_due}, {@code tasks_in_flight}, {@code tasks_waiting}), each checked against its
     * task's status (SQL by hand can leave a side row behind). Its cost follows the quota, not the owner's history,
     * nor its backlog.
     */
    private static final String UNFINISHED = "select count(*) from (select 1 from tasks_due d join tasks t "
            + "on t.id = d.task_id and t.status in ('PENDING', 'FAILED') where d.owner = ? "
            + "union all select 1 from tasks_in_flight f join tasks t "
            + "on t.id = f.task_id and t.status in ('ENQUEUED', 'PROCESSING') where f.owner = ? "
            + "union all select 1 from tasks_waiting w join tasks t "
            + "on t.id = w.task_id and t.status = 'WAITING' where w.owner = ? limit ?) as unfinished";

    private final KeyDirectory keys;

    Quotas(KeyDirectory keys) {
        this.keys = keys;
    }

    public OptionalInt limitFor(String owner) {
        if (owner == null) {
            return OptionalInt.empty();
        }
        OptionalInt own = keys.limitsOf(owner).map(KeySettings::maxUnfinished).orElse(OptionalInt.empty());
        return own.isPresent() ? own : keys.defaults().maxUnfinished();
    }

    /**
     * Takes {@code owner}'s quota lock for the rest of the transaction and counts its unfinished tasks, up to
     * {@code limit} (a count that reached it means: no room). The lock is transaction-scoped and advisory: the
     * next transaction that would add to the owner's unfinished tasks counts only after this one has committed or
     * rolled back, so the quota holds exactly. Callers that lock several owners take them in name order, so that
     * two never deadlock.
     */
    long lockAndCount(Connection connection, String owner, int limit) throws SQLException {
        lock(connection, owner);
        try (PreparedStatement count = connection.prepareStatement(UNFINISHED)) {
            count.setString(1, owner);
            count.setString(2, owner);
            count.setString(3, owner);
            count.setInt(4, limit);
            try (ResultSet row = count.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /**
     * Takes the quota locks of those of {@code owners} with a quota, in name order, without counting: for a transaction
     * that must hold them before it locks task rows ({@link Dedupes}), and counts later ({@link #lockAndCount} takes
     * a lock it holds again at no cost).
     */
    void lockOwners(Connection connection, Collection<String> owners) throws SQLException {
        Set<String> limited = new TreeSet<>();
        owners.stream().filter(owner -> limitFor(owner).isPresent()).forEach(limited::add);
        for (String owner : limited) {
            lock(connection, owner);
        }
    }

    private static void lock(Connection connection, String owner) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(
                "select pg_advisory_xact_lock(hashtextextended('taskfence.quota/' || ?, 0))")) {
            lock.setString(1, owner);
            lock.execute();
        }
    }

    /**
     * Marks {@link OverQuota} the tasks that would take their owner past its quota: with {@code quotaForAll} every
     * task of an owner whose unfinished tasks and these together exceed it, else those beyond the room left. Each
     * owner with a quota is counted under its quota lock ({@link #lockAndCount}), taken in name order,
     * before any row is written.
     */
    void refuseOverQuota(Connection connection, List<NewTask> tasks, boolean quotaForAll, Submitted[] outcomes)
            throws SQLException {
        Map<String, List<Integer>> byOwner = new TreeMap<>();
        for (int i = 0; i < tasks.size(); i++) {
            String owner = tasks.get(i).owner();
            if (limitFor(owner).isPresent()) {
                byOwner.computeIfAbsent(owner, any -> new ArrayList<>()).add(i);
            }
        }
        for (Map.Entry<String, List<Integer>> owner : byOwner.entrySet()) {
            int limit = limitFor(owner.getKey()).getAsInt();
            long unfinished = lockAndCount(connection, owner.getKey(), limit);
            List<Integer> items = owner.getValue();
            long room = Math.max(0, limit - unfinished);
            if (items.size() > room) {
                OverQuota refused = new OverQuota(owner.getKey(), unfinished, limit, quotaForAll ? items.size() : 1, false);
                items.subList(quotaForAll ? 0 : (int) room, items.size()).forEach(i -> outcomes[i] = refused);
            }
        }
    }
}
