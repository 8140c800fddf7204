package io.carafe.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The library's words for what a caller can change, in the command line's: flags, and commands where it advises a call. */
class FlagNamesTest {

    @Test
    void shouldPutFlagsWhereTheLibraryNamesItsApi() {
        assertEquals("--workers must be 1..1024, was 0", FlagNames.inFlags("PregelJob.Options.workers must be 1..1024, was 0"));
        assertEquals("--weights file needs --weight-column K (or a weight in --columns)",
                FlagNames.inFlags("ImportOptions.weights file needs ImportOptions.weightColumn K (or a weight in ImportOptions.columns)"));
        assertEquals("x.txt:1: a header line? pass --header (and --columns SRC,DST[,WEIGHT] to pick columns)",
                FlagNames.inFlags("x.txt:1: a header line? set ImportOptions.header (and ImportOptions.columns SRC,DST[,WEIGHT] to pick columns)"));
        assertEquals("import again with --weight-map abs or add:X, or --weights unit or random",
                FlagNames.inFlags("import again with ImportOptions.weightMap abs or add:X, or ImportOptions.weights unit or random"));
        assertEquals("'g' is format 1: load it again (--replace, or carafe graphs drop g first)",
                FlagNames.inFlags("'g' is format 1: load it again (CarafeGraph.delete(\"g\"), then CarafeGraph.load)"));
        assertEquals("a plain message stays as it is", FlagNames.inFlags("a plain message stays as it is"));
        assertNull(FlagNames.inFlags(null));
    }
}
