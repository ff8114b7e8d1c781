package datasets

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// A File is one published file of a dataset.
type File struct {
	// Path is where the file lives in a data directory, slash-separated
	// ("raw/planetoid/ind.cora.x").
	Path string
	// URL is the canonical public address. A mirror holds the file at the
	// same path (the URL's path, without its host).
	URL string
	// Size is the size in bytes, 0 when not published.
	Size int64
	// SHA256 is the pinned sha256 (hex), or "" when none is published.
	SHA256 string
	// GitBlob is the git blob id (sha1 of "blob SIZE\x00" and the
	// content, hex) of the file in its source repository, pinned when no
	// sha256 could be computed: a check of the same strength as a sha1.
	GitBlob string
}

// Verified reports whether the file has a pinned checksum.
func (f File) Verified() bool { return f.SHA256 != "" || f.GitBlob != "" }

// MirrorPath returns the path under which a mirror holds the file: the
// canonical URL's path ("/kimiyoung/planetoid/raw/master/data/ind.cora.x").
func (f File) MirrorPath() string {
	u, err := url.Parse(f.URL)
	if err != nil {
		return "/" + f.Path
	}
	return u.Path
}

// A Dataset is a named set of published files.
type Dataset struct {
	// Name is what `fedaux data get` takes ("cora", "computer", ...).
	Name string
	// Title is the name papers use ("Amazon-Computer").
	Title string
	// Graph is the graph a scenario names for it: a file or path in the
	// data directory ("cora.npz", "raw/planetoid/ind.cora",
	// "heterophilous/minesweeper.npz", "ogbn_arxiv").
	Graph string
	// Files are the files `data get` downloads.
	Files []File
	// Unpack, when set, lists the members of Files[0] (an archive) that
	// are extracted into the data directory after it verifies: archive
	// member prefix -> data directory prefix.
	Unpack map[string]string
	// Unpacked lists the paths the unpacking must produce (the dataset is
	// present when they all exist).
	Unpacked []string
	// Metric is the metric the dataset's own paper reports: "accuracy",
	// or "rocauc" for the binary heterophilous sets.
	Metric string
	// Source and Cite say where it comes from, for `fedaux data`.
	Source, Cite string
}

// Present lists the dataset's files that a data directory should hold
// once it is installed.
func (d *Dataset) Present() []string {
	if d.Unpacked != nil {
		return d.Unpacked
	}
	var ps []string
	for _, f := range d.Files {
		ps = append(ps, f.Path)
	}
	return ps
}

const (
	planetoidURL = "https://github.com/kimiyoung/planetoid/raw/master/data/"
	amazonURL    = "https://github.com/shchur/gnn-benchmark/raw/master/data/npz/"
	heteroURL    = "https://github.com/yandex-research/heterophilous-graphs/raw/main/data/"
)

// planetoid returns the eight raw files of a Planetoid dataset; sums
// holds "size sha256" (or "size git:BLOB") for x, y, tx, ty, allx, ally,
// graph and test.index in that order.
func planetoid(name, title string, sums [8]string) *Dataset {
	d := &Dataset{
		Name: name, Title: title, Graph: "raw/planetoid/ind." + name, Metric: "accuracy",
		Source: "Planetoid raw files, github.com/kimiyoung/planetoid (what PyTorch Geometric's Planetoid downloads)",
		Cite:   "Yang, Cohen, Salakhutdinov, ICML 2016; Sen et al., AI Magazine 2008",
	}
	for i, part := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
		f := File{Path: "raw/planetoid/ind." + name + "." + part, URL: planetoidURL + "ind." + name + "." + part}
		var sum string
		fmt.Sscanf(sums[i], "%d %s", &f.Size, &sum)
		if blob, ok := strings.CutPrefix(sum, "git:"); ok {
			f.GitBlob = blob
		} else {
			f.SHA256 = sum
		}
		d.Files = append(d.Files, f)
	}
	return d
}

func hetero(name, title string, size int64, sum, metric string) *Dataset {
	return &Dataset{
		Name: name, Title: title, Graph: "heterophilous/" + name + ".npz", Metric: metric,
		Files:  []File{{Path: "heterophilous/" + name + ".npz", URL: heteroURL + name + ".npz", Size: size, SHA256: sum}},
		Source: "github.com/yandex-research/heterophilous-graphs, data/" + name + ".npz",
		Cite:   "Platonov et al., ICLR 2023",
	}
}

// catalogue is every dataset, in the order `fedaux data` lists them.
var catalogue = []*Dataset{
	planetoid("cora", "Cora", [8]string{
		"22119 23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab",
		"4054 94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1",
		"148025 b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a",
		"28135 41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad",
		"257305 9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543",
		"47959 2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71",
		"59847 58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d",
		"5000 297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875",
	}),
	planetoid("citeseer", "CiteSeer", [8]string{
		"31087 d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6",
		"3014 8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924",
		"260321 539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21",
		"24135 55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce",
		"595021 2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668",
		"55623 f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95",
		"61987 d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7",
		"5000 2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4",
	}),
	// PubMed: the sha256 of seven files were computed from the blobs of
	// kimiyoung/planetoid at commit af6abf46; the content of ind.pubmed.allx
	// could not be obtained here, so its git blob id from that commit's
	// tree is pinned instead.
	planetoid("pubmed", "PubMed", [8]string{
		"23172 fbe9cb5c47200d1b7769a26e579be3b7130b556831f9d850e77c4c74f2599b33",
		"854 e6c807633307a07ed659249006536a147c7999c797f11a2560752990181b41b3",
		"405505 4eb5f5d0f30f26497eb0ac6ac9719d09c67e284f1ed0385c93f3ef27a671da3d",
		"12135 ee2e0d4819d9fbcc403689c3bf2e49face401b605932f093bc58ab6461130fdd",
		"7578385 git:3b86bccf08111c37c632a9dd8ab63db25ea76361",
		"224739 0c37bbe3b5014ec365e9d393cf4791925e5ed94fb194305d74f064a8d7b50f0e",
		"471808 5b89f0036ca22909471f1e6558eb42fa06e0c730a577bde5b058b40638f81dc9",
		"6000 b101d421688bbaecbd82e8a18f1e282378d6830f3a37666f28ebc47f844341b5",
	}),
	{
		Name: "computer", Title: "Amazon-Computer", Graph: "amazon_electronics_computers.npz", Metric: "accuracy",
		Files: []File{{Path: "amazon_electronics_computers.npz", URL: amazonURL + "amazon_electronics_computers.npz",
			Size: 31921488, SHA256: "736ba1d9fd85eac2da83a5ad25c463f04b0031a6ca01563f90a7099d9e8ffb2c"}},
		Source: "github.com/shchur/gnn-benchmark, data/npz (what PyTorch Geometric's Amazon downloads)",
		Cite:   "Shchur et al., NeurIPS 2018 workshop; McAuley et al., SIGIR 2015",
	},
	{
		Name: "photo", Title: "Amazon-Photo", Graph: "amazon_electronics_photo.npz", Metric: "accuracy",
		Files: []File{{Path: "amazon_electronics_photo.npz", URL: amazonURL + "amazon_electronics_photo.npz",
			Size: 17113960, SHA256: "bdb1feb8e6ff42ee44024b04479145029c563fd42fc31bff80af20887ba0439a"}},
		Source: "github.com/shchur/gnn-benchmark, data/npz (what PyTorch Geometric's Amazon downloads)",
		Cite:   "Shchur et al., NeurIPS 2018 workshop; McAuley et al., SIGIR 2015",
	},
	{
		// OGB publishes no checksum of its archives: installing it needs
		// -unverified, and `data get` prints the sha256 it saw.
		Name: "arxiv", Title: "ogbn-arxiv", Graph: "ogbn_arxiv", Metric: "accuracy",
		Files:    []File{{Path: "ogbn_arxiv/arxiv.zip", URL: "http://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip"}},
		Unpack:   map[string]string{"arxiv/raw/": "ogbn_arxiv/raw/"},
		Unpacked: []string{"ogbn_arxiv/raw/edge.csv.gz", "ogbn_arxiv/raw/node-feat.csv.gz", "ogbn_arxiv/raw/node-label.csv.gz"},
		Source:   "Open Graph Benchmark, snap.stanford.edu/ogb (what the ogb package downloads); no published checksum",
		Cite:     "Hu et al., NeurIPS 2020",
	},
	hetero("minesweeper", "Minesweeper", 135045, "e664c8dacf1e8ac466c2c09ed4b237bd2c5541f47a6eae9c6092cb87f16412b3", "rocauc"),
	hetero("tolokers", "Tolokers", 1329769, "dacf3ac94cec53d03cd2adb5255c08b33dee1656c33ca8164a464bd9450a1667", "rocauc"),
	hetero("actor", "Actor", 252956, "c350eef06b2c2a9bf8218be2b57cac6d4003d0922eb597a039e9123f75817816", "accuracy"),
	hetero("chameleon_filtered", "Chameleon (filtered)", 58924, "bf46f07e1fb5249280447e5fe3100f3e82fc4b93ad1e13ffcfdec924b6ac0bb5", "accuracy"),
	hetero("squirrel_filtered", "Squirrel (filtered)", 208215, "f06370ffb3116c5de8b7a600005400b2293c025e0ce2f6916d8201a825505ac7", "accuracy"),
}

// All returns every dataset of the catalogue.
func All() []*Dataset { return slices.Clone(catalogue) }

// Names returns the names of the datasets.
func Names() []string {
	var ns []string
	for _, d := range catalogue {
		ns = append(ns, d.Name)
	}
	return ns
}

// Lookup returns the dataset called name, or an error listing the names.
func Lookup(name string) (*Dataset, error) {
	for _, d := range catalogue {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown dataset %q (have %s, or all)", name, strings.Join(Names(), ", "))
}

// ForGraph returns the dataset a scenario's graph path names, nil when
// none: the dataset's own Graph, or for the Planetoid sets also the
// converted name.npz that fedaux's presets name and a shared data
// directory holds.
func ForGraph(graph string) *Dataset {
	g := filepath.ToSlash(graph)
	for _, d := range catalogue {
		if g == d.Graph || (strings.HasPrefix(d.Graph, "raw/planetoid/") && g == d.Name+".npz") {
			return d
		}
	}
	return nil
}
