/**
 * /api/v1/types (TypesResource): the task types and their states; pause and resume; remote types declared through the
 * API and taken back (TypeDeclaration).
 *
 * <p>May import api.auth, api.problem, task and types.
 */
package io.taskfence.api.types;
