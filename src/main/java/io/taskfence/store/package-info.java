/**
 * PostgreSQL access: connections and transactions (TaskDatabase), the fence check of every fenced transaction,
 * grouped commits, schema migrations, and the store's exceptions.
 *
 * <p>Imports no other Taskfence package.
 */
package io.taskfence.store;
