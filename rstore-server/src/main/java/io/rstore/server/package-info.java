/** The memory server: registered, keyed DRAM chunks handed out to namespaces. */
package io.rstore.server;
