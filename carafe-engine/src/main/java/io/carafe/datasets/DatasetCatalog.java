package io.carafe.datasets;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The catalog of named graphs, read from the packaged copy of {@code datasets/catalog.tsv}. */
public final class DatasetCatalog {
    private static final String RESOURCE = "catalog.tsv";

    private final List<Dataset> entries;

    private DatasetCatalog(List<Dataset> entries) {
        this.entries = List.copyOf(entries);
    }

    public static DatasetCatalog load() {
        try (InputStream in = DatasetCatalog.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the dataset catalog is missing from the build (io/carafe/datasets/catalog.tsv)");
            }
            CSVFormat tsv = CSVFormat.TDF.builder().setHeader().setSkipHeaderRecord(true).get();
            List<Dataset> entries = new ArrayList<>();
            try (CSVParser parser = CSVParser.parse(new InputStreamReader(in, StandardCharsets.UTF_8), tsv)) {
                for (CSVRecord r : parser) {
                    entries.add(new Dataset(r.get("name"), r.get("file"), r.get("url"), r.get("kind").equals("generated"),
                            Boolean.parseBoolean(r.get("undirected")), Long.parseLong(r.get("vertices")),
                            Long.parseLong(r.get("edge_lines")), r.get("sha256"), r.get("description")));
                }
            }
            return new DatasetCatalog(entries);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the dataset catalog", e);
        }
    }

    public List<Dataset> entries() {
        return entries;
    }

    public Optional<Dataset> find(String name) {
        return entries.stream().filter(d -> d.name().equalsIgnoreCase(name)).findFirst();
    }
}
