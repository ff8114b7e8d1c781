// Package datasets is the catalogue of the public graph datasets fedaux
// reads, where each is published, the checksum of every file, and a
// downloader that fetches them into a data directory: resumable, verified
// against the pinned checksums, installed atomically, from the canonical
// sources or from a mirror that holds the same paths.
package datasets
