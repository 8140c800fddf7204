/**
 * Global barrier synchronisation over an RStore region: one-byte status flags written and
 * polled with one-sided operations, data always written before its flag.
 */
package io.rstore.barrier;
