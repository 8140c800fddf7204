/**
 * The shm transport: memory servers keep chunks in files under /dev/shm (or a hugetlbfs
 * mount); clients on the same host map them and copy directly, with no server CPU on the
 * data path. {@code rstore://} picks it per server when the server is on this host.
 */
package io.rstore.transport.shm;
