/**
 * The durable job store: queued jobs and the job sets' event history in an embedded database (SQLite by default),
 * its schema kept by migrations. A write is acknowledged only once it is committed; on a restart the store gives back
 * every acknowledged job, its state and its history. The store records; the engine decides.
 */
package io.fairway.store;
