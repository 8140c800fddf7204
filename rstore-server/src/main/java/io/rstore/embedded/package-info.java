/**
 * The embedded cluster: master and memory servers in the client's JVM over the inproc
 * transport; the default for laptops and tests.
 */
package io.rstore.embedded;
