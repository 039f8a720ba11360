/**
 * PostgreSQL access: connections and transactions (TaskDatabase; the API's reads on a pool of their own, ReadDatabase),
 * the fence check of every fenced transaction, grouped commits, schema migrations, and the store's exceptions.
 *
 * <p>May import nothing.
 */
package io.taskfence.store;
