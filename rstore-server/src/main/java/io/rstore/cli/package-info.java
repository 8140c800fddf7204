/** The {@code rstore} command line: a routing root and one class per subcommand. */
package io.rstore.cli;
