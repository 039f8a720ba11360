/**
 * Body strictness before a resource sees a request: size limit (413), JSON only, UTF-8 only, no duplicate keys.
 *
 * <p>May import api.problem.
 */
package io.taskfence.api.body;
