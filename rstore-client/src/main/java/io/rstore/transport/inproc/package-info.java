/**
 * The in-process transport of the embedded cluster: one-sided operations as checked
 * copies between memory segments of one JVM.
 */
package io.rstore.transport.inproc;
