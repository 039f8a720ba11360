package io.taskfence.keys;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

import jakarta.enterprise.context.ApplicationScoped;

import io.taskfence.store.TaskDatabase;
import io.taskfence.types.Rate;

/**
 * The tables {@code api_keys} and {@code api_key_secrets} (migration V31): the one seam to them. A key's row stays
 * after it is revoked, so that its name, which owns tasks and audit entries, is never given to another key; its
 * secrets' digests go. Each change locks the key's row first, so two changes of one key run one after the other and
 * a check made on the row holds when its change is written.
 */
@ApplicationScoped
public class StoredKeys {

    /** One secret's digest, and when it stops working (null: while it is the key's current one). */
    public record StoredSecret(String name, byte[] digest, Instant expiresAt) {
    }

    /** Every key, live or revoked, with the live keys' secrets that have not expired. */
    public record Contents(List<KeySettings> live, List<KeySettings> revoked, List<StoredSecret> secrets) {
    }

    /** The outcome of {@link #create}. */
    public enum Created {
        CREATED,
        /** A key has or had the name, or tasks, schedules or audit entries carry it as their owner's. */
        NAME_TAKEN,
        /** As many keys are live as there may be. */
        FULL
    }

    private static final String COLUMNS = "name, role, worker_types, max_unfinished, weight, max_priority, rate, "
            + "allowed_hosts, callback_secret";
    private static final String KEYS = "select " + COLUMNS + ", revoked_at is not null as revoked from api_keys";
    private static final String LIVE_SECRETS = "select s.key_name, s.digest, s.expires_at from api_key_secrets s "
            + "join api_keys k on k.name = s.key_name and k.revoked_at is null "
            + "where s.expires_at is null or s.expires_at > now()";
    private static final String INSERT_KEY = "insert into api_keys (" + COLUMNS + ", created_by) "
            + "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (name) do nothing";
    private static final String INSERT_SECRET = "insert into api_key_secrets (key_name, digest) values (?, ?)";
    private static final String LOCK_KEY = "select " + COLUMNS + " from api_keys where name = ? and revoked_at is null "
            + "for update";
    private static final String UPDATE_KEY = "update api_keys set worker_types = ?, max_unfinished = ?, weight = ?, "
            + "max_priority = ?, rate = ?, allowed_hosts = ?, updated_at = now() where name = ?";
    /** The secrets still working end at the overlap's end, or sooner if they ended sooner; the expired ones go. */
    private static final String AGE_SECRETS = "with gone as (delete from api_key_secrets where key_name = ? "
            + "and expires_at <= now()) update api_key_secrets set expires_at = least(coalesce(expires_at, ?), ?) "
            + "where key_name = ? and (expires_at is null or expires_at > now())";
    private static final String REVOKE = "with gone as (delete from api_key_secrets where key_name = ?) "
            + "update api_keys set revoked_at = now(), updated_at = now() where name = ?";
    private static final String COUNT_LIVE = "select count(*) from api_keys where revoked_at is null";
    /** Makes one key's creation at a time: the count of live keys and the name's checks hold until it commits. */
    private static final String CREATION_LOCK = "select pg_advisory_xact_lock(hashtextextended('taskfence.api-keys', 0))";
    /**
     * A name that owns something: a configured key removed from the configuration leaves its tasks, schedules and
     * audit entries, which a new key of that name would take over. Each reads an index by owner or key name.
     */
    private static final String NAME_OWNS = "select exists (select 1 from tasks where owner = ?) "
            + "or exists (select 1 from schedules where owner = ?) or exists (select 1 from audit_log where key_name = ?)";

    private final TaskDatabase database;

    StoredKeys(TaskDatabase database) {
        this.database = database;
    }

    public Contents read() {
        return database.inConnection(connection -> {
            List<KeySettings> live = new ArrayList<>();
            List<KeySettings> revoked = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(KEYS);
                    ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    (row.getBoolean("revoked") ? revoked : live).add(settings(row));
                }
            }
            List<StoredSecret> secrets = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(LIVE_SECRETS);
                    ResultSet row = select.executeQuery()) {
                while (row.next()) {
                    Timestamp expires = row.getTimestamp(3);
                    secrets.add(new StoredSecret(row.getString(1), row.getBytes(2),
                            expires == null ? null : expires.toInstant()));
                }
            }
            return new Contents(live, revoked, secrets);
        });
    }

    /**
     * Stores {@code key} with the secret whose digest is {@code digest}, made by the key named {@code by}, unless
     * {@code most} keys are live already or the name is taken; then nothing is stored.
     */
    public Created create(KeySettings key, byte[] digest, String by, int most) {
        return database.inTransaction(connection -> {
            try (PreparedStatement lock = connection.prepareStatement(CREATION_LOCK)) {
                lock.executeQuery().close();
            }
            try (PreparedStatement count = connection.prepareStatement(COUNT_LIVE); ResultSet row = count.executeQuery()) {
                row.next();
                if (row.getLong(1) >= most) {
                    return Created.FULL;
                }
            }
            try (PreparedStatement owns = connection.prepareStatement(NAME_OWNS)) {
                for (int i = 1; i <= 3; i++) {
                    owns.setString(i, key.name());
                }
                try (ResultSet row = owns.executeQuery()) {
                    row.next();
                    if (row.getBoolean(1)) {
                        return Created.NAME_TAKEN;
                    }
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(INSERT_KEY)) {
                bindSettings(connection, insert, key);
                insert.setString(10, by);
                if (insert.executeUpdate() == 0) {
                    return Created.NAME_TAKEN;
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(INSERT_SECRET)) {
                insert.setString(1, key.name());
                insert.setBytes(2, digest);
                insert.executeUpdate();
            }
            return Created.CREATED;
        });
    }

    /**
     * Changes the limits of the key {@code name} (not its name, role or callback secret) to what {@code change} makes
     * of them, its row locked meanwhile; {@code change} may throw to refuse, and then nothing changes.
     *
     * @return the key as changed; empty when no such key is live
     */
    public Optional<KeySettings> change(String name, UnaryOperator<KeySettings> change) {
        return database.inTransaction(connection -> {
            Optional<KeySettings> current = lock(connection, name);
            if (current.isEmpty()) {
                return current;
            }
            KeySettings changed = change.apply(current.get());
            try (PreparedStatement update = connection.prepareStatement(UPDATE_KEY)) {
                update.setArray(1, textArray(connection, changed.workerTypes().isEmpty() ? null : changed.workerTypes()));
                setInt(update, 2, changed.maxUnfinished());
                update.setInt(3, changed.weight());
                setInt(update, 4, changed.maxPriority());
                update.setString(5, changed.rate().map(Rate::toString).orElse(null));
                update.setArray(6, textArray(connection, changed.allowedHosts().orElse(null)));
                update.setString(7, name);
                update.executeUpdate();
            }
            return Optional.of(changed);
        });
    }

    /**
     * Gives the key {@code name} the new secret whose digest is {@code digest}; its secrets that still work keep
     * working for {@code overlap} (not longer than they would have). {@code check} sees the key first and may throw
     * to refuse.
     *
     * @return when the secrets before this one stop working; empty when no such key is live
     */
    public Optional<Instant> rotate(String name, Consumer<KeySettings> check, byte[] digest, Duration overlap) {
        return database.inTransaction(connection -> {
            Optional<KeySettings> current = lock(connection, name);
            if (current.isEmpty()) {
                return Optional.empty();
            }
            check.accept(current.get());
            Instant ends = databaseNow(connection).plus(overlap);
            try (PreparedStatement age = connection.prepareStatement(AGE_SECRETS)) {
                age.setString(1, name);
                age.setTimestamp(2, Timestamp.from(ends));
                age.setTimestamp(3, Timestamp.from(ends));
                age.setString(4, name);
                age.executeUpdate();
            }
            try (PreparedStatement insert = connection.prepareStatement(INSERT_SECRET)) {
                insert.setString(1, name);
                insert.setBytes(2, digest);
                insert.executeUpdate();
            }
            return Optional.of(ends);
        });
    }

    /**
     * Revokes the key {@code name}: its secrets stop working. {@code check} sees the key first and may throw to refuse.
     *
     * @return false when no such key is live
     */
    public boolean revoke(String name, Consumer<KeySettings> check) {
        return database.inTransaction(connection -> {
            Optional<KeySettings> current = lock(connection, name);
            if (current.isEmpty()) {
                return false;
            }
            check.accept(current.get());
            try (PreparedStatement revoke = connection.prepareStatement(REVOKE)) {
                revoke.setString(1, name);
                revoke.setString(2, name);
                revoke.executeUpdate();
            }
            return true;
        });
    }

    private static Optional<KeySettings> lock(Connection connection, String name) throws SQLException {
        try (PreparedStatement lock = connection.prepareStatement(LOCK_KEY)) {
            lock.setString(1, name);
            try (ResultSet row = lock.executeQuery()) {
                return row.next() ? Optional.of(settings(row)) : Optional.empty();
            }
        }
    }

    private static Instant databaseNow(Connection connection) throws SQLException {
        try (PreparedStatement now = connection.prepareStatement("select now()"); ResultSet row = now.executeQuery()) {
            row.next();
            return row.getTimestamp(1).toInstant();
        }
    }

    private static void bindSettings(Connection connection, PreparedStatement insert, KeySettings key)
            throws SQLException {
        insert.setString(1, key.name());
        insert.setString(2, key.role());
        insert.setArray(3, textArray(connection, key.workerTypes().isEmpty() ? null : key.workerTypes()));
        setInt(insert, 4, key.maxUnfinished());
        insert.setInt(5, key.weight());
        setInt(insert, 6, key.maxPriority());
        insert.setString(7, key.rate().map(Rate::toString).orElse(null));
        insert.setArray(8, textArray(connection, key.allowedHosts().orElse(null)));
        insert.setString(9, key.callbackSecret().orElse(null));
    }

    private static KeySettings settings(ResultSet row) throws SQLException {
        int maxUnfinished = row.getInt("max_unfinished");
        OptionalInt quota = row.wasNull() ? OptionalInt.empty() : OptionalInt.of(maxUnfinished);
        int maxPriority = row.getInt("max_priority");
        OptionalInt priority = row.wasNull() ? OptionalInt.empty() : OptionalInt.of(maxPriority);
        List<String> types = texts(row.getArray("worker_types"));
        List<String> hosts = texts(row.getArray("allowed_hosts"));
        return new KeySettings(row.getString("name"), row.getString("role"),
                types == null ? Set.of() : Set.copyOf(types), quota, row.getInt("weight"), priority,
                Optional.ofNullable(row.getString("rate")).map(Rate::parse), Optional.ofNullable(hosts),
                Optional.ofNullable(row.getString("callback_secret")), false);
    }

    private static List<String> texts(Array array) throws SQLException {
        return array == null ? null : Arrays.asList((String[]) array.getArray());
    }

    private static Array textArray(Connection connection, Collection<String> values) throws SQLException {
        return values == null ? null : connection.createArrayOf("text", values.toArray());
    }

    private static void setInt(PreparedStatement statement, int index, OptionalInt value) throws SQLException {
        if (value.isPresent()) {
            statement.setInt(index, value.getAsInt());
        } else {
            statement.setNull(index, Types.INTEGER);
        }
    }
}
