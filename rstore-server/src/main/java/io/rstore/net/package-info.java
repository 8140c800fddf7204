/** RStore over the network: the TCP server and a cluster that serves master and memory servers from one process. */
package io.rstore.net;
