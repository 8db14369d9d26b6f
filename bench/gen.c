/* gen: write a large, realistic, well-formed XML document to stdout.
 *
 *   gen [-s SHAPE] SIZE_MIB [SEED]
 *   gen -l                          (lists the shapes)
 *
 * The output is exactly SIZE_MIB * 2^20 bytes (SIZE_MIB may have a fraction)
 * and depends only on SHAPE, SIZE_MIB and SEED (default 1).
 *
 * The default shape, mixed-dump, mixes the shapes of the dumps stax is meant
 * for: wiki pages (long text with many escaped references), PubMed-like
 * citations (deep nesting, many small elements) and OpenStreetMap-like nodes
 * and ways (attribute-heavy empty elements), with indentation, comments, CDATA,
 * character references and non-ASCII UTF-8 (2-, 3- and 4-byte sequences), in
 * text and in attribute values. The other shapes each stress one thing (see
 * `shapes` below): record, attrs, text, deep, mixed (mixed content) and
 * nonascii.
 *
 * Speed: text is drawn from a pool of sentences built once at start-up, so a
 * record is mostly a few dozen memcpy calls; records go into a 1 MiB buffer
 * written with write(2) (to a 1 MiB pipe where Linux allows). Memory stays
 * constant whatever the size.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- output */

enum {
    OUT_FLUSH = 1 << 20,   /* flush the buffer once it holds this much */
    MAX_RECORD = 1 << 16,  /* no record is longer (checked after each one) */
    OUT_CAP = OUT_FLUSH + 2 * MAX_RECORD
};

typedef struct out {
    char *buf;
    size_t len;       /* bytes in buf */
    uint64_t flushed; /* bytes already written to fd */
} out;

static void out_flush(out *o) {
    size_t done = 0;
    while (done < o->len) {
        ssize_t n = write(STDOUT_FILENO, o->buf + done, o->len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            perror("gen: write");
            exit(2);
        }
        done += (size_t)n;
    }
    o->flushed += o->len;
    o->len = 0;
}

static inline void put(out *o, const char *s, size_t n) {
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}
#define PUT(o, lit) put((o), "" lit, sizeof(lit) - 1)

static inline void put_str(out *o, const char *s) { put(o, s, strlen(s)); }

static inline void put_u64(out *o, uint64_t v) {
    char t[20];
    int i = 20;
    do {
        t[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put(o, t + i, (size_t)(20 - i));
}

/* v with exactly `digits` digits, zero-padded. */
static inline void put_u64_fixed(out *o, uint64_t v, int digits) {
    char t[20];
    for (int i = digits - 1; i >= 0; i--) {
        t[i] = (char)('0' + v % 10);
        v /= 10;
    }
    put(o, t, (size_t)digits);
}

/* ---------------------------------------------------------------- randomness */

/* splitmix64: tiny, fast, and good enough to make data look varied. */
static uint64_t rng;

static inline uint64_t rnd(void) {
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n < 2^32). */
static inline uint32_t pick(uint32_t n) { return (uint32_t)(((rnd() >> 32) * n) >> 32); }

/* Uniform in [lo, hi]. */
static inline uint32_t range(uint32_t lo, uint32_t hi) { return lo + pick(hi - lo + 1); }

/* True with probability pct/100. */
static inline int chance(uint32_t pct) { return pick(100) < pct; }

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(a) ((a)[pick((uint32_t)COUNT(a))])

/* ---------------------------------------------------------------- vocabulary */

/* Every string here is already escaped for both text and a double-quoted
 * attribute value: no raw '&', '<' or '"'. */
static const char *const words[] = {
    "the", "of", "and", "in", "to", "was", "is", "for", "on", "as", "with", "by", "at", "from",
    "that", "which", "were", "are", "an", "this", "be", "or", "has", "had", "its", "also",
    "after", "first", "new", "two", "between", "during", "under", "their", "most", "such",
    "city", "river", "station", "village", "county", "district", "population", "church",
    "school", "university", "album", "season", "league", "football", "film", "series",
    "species", "family", "genus", "protein", "cells", "patients", "study", "analysis",
    "results", "treatment", "expression", "clinical", "risk", "associated", "increased",
    "significant", "effect", "model", "data", "method", "using", "based", "response",
    "activity", "levels", "group", "control", "receptor", "gene", "mice", "human", "acid",
    "road", "bridge", "building", "street", "park", "north", "south", "east", "west",
    "century", "war", "army", "king", "queen", "government", "party", "election", "council",
    "music", "band", "song", "record", "released", "published", "written", "directed",
    "American", "British", "French", "German", "Japanese", "Italian", "Spanish", "Indian",
    "January", "March", "June", "September", "December", "summer", "winter", "history",
    "original", "national", "international", "public", "private", "local", "regional",
    "system", "network", "software", "language", "version", "company", "market", "energy",
    "water", "island", "mountain", "lake", "coast", "area", "region", "province", "state",
    "it's", "don't", "O'Brien", "e.g.", "i.e.", "etc.", "vs.", "approx.", "mg/kg", "p-value",
};

/* Non-ASCII words: Latin-1 range, other scripts (3-byte) and astral (4-byte). */
static const char *const words_intl[] = {
    "Zürich", "café", "naïve", "Malmö", "São Paulo", "Kraków", "Ærøskøbing", "façade",
    "Montréal", "Ångström", "Dvořák", "Łódź", "Göteborg", "Bjørn", "Ελλάδα", "Αθήνα",
    "Москва", "Санкт-Петербург", "Київ", "東京", "日本語", "北京", "中文维基百科", "서울",
    "한국어", "القاهرة", "עברית", "हिन्दी", "ภาษาไทย", "Hà Nội", "Tiếng Việt", "İstanbul",
    "–", "—", "…", "“quoted”", "‘single’", "°C", "µm", "±5%", "€20", "£5", "¥100", "→",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "🙂", "🌍", "𠜎", "𝄞",
};

/* Tokens that exercise references: predefined entities and character refs. */
static const char *const words_ref[] = {
    "&amp;", "R&amp;D", "AT&amp;T", "&lt;ref&gt;", "&lt;/ref&gt;", "&quot;so-called&quot;",
    "&lt;br /&gt;", "a &lt; b", "x &gt; 0", "&#233;t&#233;", "&#x2014;", "&#169; 2020",
    "&#x1F600;", "caf&#xE9;", "Fish &amp; Chips", "&apos;quoted&apos;", "5 &lt; 6 &amp;&amp; 7 &gt; 6",
    "[[Link|label]]", "{{cite web|url=https://example.org/a?b=1&amp;c=2}}", "'''bold'''",
};

static const char *const given_names[] = {
    "Anna", "James", "Maria", "Wei", "José", "Søren", "Łukasz", "Ólafur", "Zoë", "Björn",
    "François", "Mohammed", "Yuki", "Priya", "Olga", "Γιώργος", "Иван", "Nguyễn Văn", "Chloé",
    "Ana Lucía", "Jürgen", "Siobhán", "Dmitri", "Aarav", "Hana", "Ingrid", "Kwame", "Mei",
};
static const char *const family_names[] = {
    "Smith", "Müller", "García", "Zhang", "Kowalski", "Ødegaard", "Nakamura", "O'Connor",
    "Dubois", "Rossi", "Johansson", "Novák", "Ivanova", "Papadopoulos", "Kim", "Singh",
    "da Silva", "van der Berg", "Øvergård", "Yılmaz", "Nguyễn", "Schäfer", "Wójcik", "Brown",
    "Fernández", "Lefèvre", "Kovačević", "Ахматова", "田中", "李",
};
static const char *const cities[] = {
    "Boston, MA, USA", "Zürich, Switzerland", "São Paulo, Brazil", "Kraków, Poland",
    "Tokyo, Japan", "Göteborg, Sweden", "Montréal, QC, Canada", "Bethesda, MD, USA",
    "Heidelberg, Germany", "Lyon, France", "Seoul, Republic of Korea", "Cape Town, South Africa",
};
static const char *const departments[] = {
    "Department of Medicine", "Institute of Molecular Biology", "School of Public Health",
    "Department of Chemistry &amp; Biochemistry", "Center for Genomic Research",
    "Division of Cardiology", "Laboratory of Cell Biology", "Department of Psychiatry",
};
static const char *const mesh[] = {
    "Humans", "Animals", "Mice", "Female", "Male", "Adult", "Middle Aged", "Aged",
    "Risk Factors", "Cohort Studies", "Signal Transduction", "Gene Expression Regulation",
    "Treatment Outcome", "Retrospective Studies", "Neoplasms", "Brain", "Child",
};
static const char *const abstract_labels[] = {
    "BACKGROUND", "OBJECTIVE", "METHODS", "RESULTS", "CONCLUSIONS",
};
static const char *const osm_keys[] = {
    "highway", "name", "building", "amenity", "surface", "addr:street", "addr:housenumber",
    "addr:city", "source", "oneway", "lanes", "maxspeed", "landuse", "natural", "name:en",
};
static const char *const osm_values[] = {
    "residential", "service", "yes", "primary", "asphalt", "cafe", "restaurant", "bench",
    "Bing", "survey", "2", "50", "Main Street", "Hauptstraße", "Rue de la Paix", "12a",
    "Fish &amp; Chips", "Café &quot;Zur Post&quot;", "駅前通り", "Красная площадь", "tree",
};
static const char *const code_snippets[] = {
    "if (a < b && b > c) { return \"x\"; }",
    "for (i = 0; i < n; i++) sum += v[i] & mask;",
    "<p class=\"note\">Raw <b>markup</b> &amp; ampersands</p>",
    "SELECT * FROM t WHERE x < 10 AND y <> 'z';",
    "x = a[b[0]] ] > y; /* not the end */",
};
static const char *const comments[] = {
    " imported from revision history ",
    " generated by stax bench/gen ",
    " end of batch ",
    " TODO: check coordinates (see note) ",
    " Ünïcödé in a comment: 東京 🙂 ",
};

/* ---------------------------------------------------------------- sentence pools */

/* Text comes from pools of sentences built once: each a capitalised run of
 * words and commas ending with ". ", the words drawn by the pool's word
 * source. A shape builds only the pools it uses. */
enum { N_SENTENCES = 8192, SENTENCE_MAX = 400, WORD_MAX = 64 };

typedef struct pool {
    char *arena;
    uint32_t off[N_SENTENCES];
    uint16_t len[N_SENTENCES];
} pool;

/* Writes word number `index` of a sentence into w (at most WORD_MAX bytes,
 * already escaped for text and attribute values) and returns its length. */
typedef size_t word_source(char *w, uint32_t index);

static pool dump_pool, plain_pool, intl_pool;

static void build_pool(pool *p, word_source *next_word) {
    p->arena = malloc((size_t)N_SENTENCES * SENTENCE_MAX);
    if (!p->arena) {
        fputs("gen: out of memory\n", stderr);
        exit(2);
    }
    size_t at = 0;
    for (uint32_t i = 0; i < N_SENTENCES; i++) {
        char *s = p->arena + at;
        size_t n = 0;
        uint32_t nwords = range(5, 26);
        for (uint32_t w = 0; w < nwords; w++) {
            char word[WORD_MAX];
            size_t wl = next_word(word, w);
            if (n + wl + 4 > SENTENCE_MAX) break;
            if (w > 0) s[n++] = ' ';
            memcpy(s + n, word, wl);
            if (w == 0 && s[n] >= 'a' && s[n] <= 'z') s[n] = (char)(s[n] - 'a' + 'A');
            n += wl;
            if (w + 1 < nwords && chance(8)) s[n++] = ',';
        }
        s[n++] = '.';
        s[n++] = ' ';
        p->off[i] = (uint32_t)at;
        p->len[i] = (uint16_t)n;
        at += n;
    }
}

static size_t copy_word(char *w, const char *word) {
    size_t n = strlen(word);
    if (n > WORD_MAX) {
        fprintf(stderr, "gen: internal error: the word '%s' is longer than WORD_MAX\n", word);
        exit(2);
    }
    memcpy(w, word, n);
    return n;
}

/* The generated document: English words, 6% non-ASCII, 4% references. */
static size_t dump_word(char *w, uint32_t index) {
    (void)index;
    uint32_t kind = pick(100);
    if (kind < 6) return copy_word(w, PICK(words_intl));
    if (kind < 10) return copy_word(w, PICK(words_ref));
    return copy_word(w, PICK(words));
}

/* Plain prose: ASCII words, and a reference in about one word of 70. */
static const char *const plain_refs[] = {
    "&amp;", "&amp;", "R&amp;D", "Fish &amp; Chips", "&lt;", "a &lt; b", "x &gt; 0", "&lt;tag&gt;",
};

static size_t plain_word(char *w, uint32_t index) {
    (void)index;
    if (pick(1000) < 14) return copy_word(w, PICK(plain_refs));
    return copy_word(w, PICK(words));
}

static size_t put_utf8(char *w, uint32_t c) {
    if (c < 0x80) {
        w[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        w[0] = (char)(0xC0 | c >> 6);
        w[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        w[0] = (char)(0xE0 | c >> 12);
        w[1] = (char)(0x80 | (c >> 6 & 0x3F));
        w[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    w[0] = (char)(0xF0 | c >> 18);
    w[1] = (char)(0x80 | (c >> 12 & 0x3F));
    w[2] = (char)(0x80 | (c >> 6 & 0x3F));
    w[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Non-ASCII prose: each sentence in one script, its words random letters
 * of that script, with an emoji now and then. Every code point drawn is a
 * letter or symbol (no noncharacter, no control). */
typedef struct script {
    uint32_t first, last;      /* code points drawn from */
    uint32_t min_len, max_len; /* characters a word */
} script;

static const script scripts[] = {
    {0x03B1, 0x03C9, 3, 10},   /* Greek small letters: 2 bytes */
    {0x0430, 0x044F, 3, 10},   /* Cyrillic small letters: 2 bytes */
    {0x4E00, 0x9FFF, 1, 4},    /* CJK unified ideographs: 3 bytes */
    {0xAC00, 0xD7A3, 1, 4},    /* Hangul syllables: 3 bytes */
    {0x20000, 0x2A6DF, 1, 3},  /* CJK extension B: 4 bytes */
};
static const script emoji = {0x1F300, 0x1F64F, 1, 2}; /* pictographs, emoticons: 4 bytes */

static size_t intl_word(char *w, uint32_t index) {
    static const script *sentence_script;
    if (index == 0) sentence_script = &scripts[pick((uint32_t)COUNT(scripts))];
    const script *sc = chance(12) ? &emoji : sentence_script;
    uint32_t chars = range(sc->min_len, sc->max_len);
    size_t n = 0;
    for (uint32_t i = 0; i < chars; i++) n += put_utf8(w + n, range(sc->first, sc->last));
    return n;
}

static inline void put_sentence(out *o, const pool *p) {
    uint32_t i = pick(N_SENTENCES);
    put(o, p->arena + p->off[i], p->len[i]);
}

/* A short phrase (title, comment, attribute value): a sentence cut at a space,
 * without its final period. */
static inline void put_phrase(out *o, const pool *p, size_t max) {
    uint32_t i = pick(N_SENTENCES);
    const char *s = p->arena + p->off[i];
    size_t n = p->len[i] - 2;
    if (n > max) {
        /* Cut at a space (references and UTF-8 sequences hold none): the last
         * one within max, else the first one at all. */
        size_t cut = max;
        while (cut > 0 && s[cut] != ' ') cut--;
        if (cut == 0)
            for (cut = 1; cut < n && s[cut] != ' '; cut++) {}
        n = cut;
        while (n > 1 && s[n - 1] == ',') n--;
    }
    put(o, s, n);
}

/* ---------------------------------------------------------------- fields */

static void put_timestamp(out *o) {
    put_u64(o, range(2001, 2024));
    PUT(o, "-");
    put_u64_fixed(o, range(1, 12), 2);
    PUT(o, "-");
    put_u64_fixed(o, range(1, 28), 2);
    PUT(o, "T");
    put_u64_fixed(o, pick(24), 2);
    PUT(o, ":");
    put_u64_fixed(o, pick(60), 2);
    PUT(o, ":");
    put_u64_fixed(o, pick(60), 2);
    PUT(o, "Z");
}

/* A signed fixed-point coordinate in [-limit, limit] with 7 decimals. */
static void put_coord(out *o, uint32_t limit) {
    uint64_t v = rnd() % ((uint64_t)limit * 20000000u + 1);
    int64_t s = (int64_t)v - (int64_t)limit * 10000000;
    if (s < 0) {
        PUT(o, "-");
        s = -s;
    }
    put_u64(o, (uint64_t)s / 10000000u);
    PUT(o, ".");
    put_u64_fixed(o, (uint64_t)s % 10000000u, 7);
}

static void put_sha1(out *o) {
    static const char b36[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    char t[31];
    uint64_t r = 0;
    for (int i = 0; i < 31; i++) {
        if (i % 12 == 0) r = rnd();
        t[i] = b36[r % 36];
        r /= 36;
    }
    put(o, t, sizeof t);
}

static void put_person(out *o) {
    put_str(o, PICK(given_names));
    PUT(o, " ");
    put_str(o, PICK(family_names));
}

/* ---------------------------------------------------------------- records */

static uint64_t next_id = 1000;

/* A wiki page: a few small fields and one long text with paragraphs,
 * headings, references; sometimes a CDATA code sample and a comment. */
static void emit_page(out *o) {
    PUT(o, "\n  <page>\n    <title>");
    put_phrase(o, &dump_pool, 60);
    PUT(o, "</title>\n    <ns>0</ns>\n    <id>");
    put_u64(o, next_id++);
    PUT(o, "</id>\n    <revision>\n      <id>");
    put_u64(o, next_id * 7 + pick(7));
    PUT(o, "</id>\n");
    if (chance(70)) {
        PUT(o, "      <parentid>");
        put_u64(o, next_id * 7 - pick(1000));
        PUT(o, "</parentid>\n");
    }
    PUT(o, "      <timestamp>");
    put_timestamp(o);
    PUT(o, "</timestamp>\n      <contributor>\n        <username>");
    put_person(o);
    PUT(o, "</username>\n        <id>");
    put_u64(o, pick(40000000));
    PUT(o, "</id>\n      </contributor>\n");
    if (chance(20)) PUT(o, "      <minor />\n");
    if (chance(60)) {
        PUT(o, "      <comment>");
        put_phrase(o, &dump_pool, 80);
        PUT(o, "</comment>\n");
    }
    PUT(o, "      <model>wikitext</model>\n      <format>text/x-wiki</format>\n"
           "      <text bytes=\"");
    put_u64(o, range(200, 60000));
    PUT(o, "\" xml:space=\"preserve\">");
    uint32_t paragraphs = range(1, 8);
    for (uint32_t p = 0; p < paragraphs; p++) {
        if (p > 0) {
            if (chance(40)) {
                PUT(o, "\n\n== ");
                put_phrase(o, &dump_pool, 30);
                PUT(o, " ==\n");
            } else {
                PUT(o, "\n\n");
            }
        }
        uint32_t n = range(1, 6);
        for (uint32_t s = 0; s < n; s++) put_sentence(o, &dump_pool);
    }
    PUT(o, "</text>\n");
    if (chance(10)) {
        PUT(o, "      <source lang=\"c\"><![CDATA[");
        put_str(o, PICK(code_snippets));
        PUT(o, "]]></source>\n");
    }
    PUT(o, "      <sha1>");
    put_sha1(o);
    PUT(o, "</sha1>\n    </revision>\n  </page>");
    if (chance(5)) {
        PUT(o, "\n  <!--");
        put_str(o, PICK(comments));
        PUT(o, "-->");
    }
}

/* A citation: deep nesting, many short elements, attributes on most. */
static void emit_citation(out *o) {
    PUT(o, "\n  <PubmedArticle>\n    <MedlineCitation Status=\"MEDLINE\" Owner=\"NLM\">\n"
           "      <PMID Version=\"1\">");
    put_u64(o, next_id++);
    PUT(o, "</PMID>\n      <DateCompleted>\n        <Year>");
    put_u64(o, range(1990, 2024));
    PUT(o, "</Year>\n        <Month>");
    put_u64_fixed(o, range(1, 12), 2);
    PUT(o, "</Month>\n        <Day>");
    put_u64_fixed(o, range(1, 28), 2);
    PUT(o, "</Day>\n      </DateCompleted>\n      <Article PubModel=\"Print-Electronic\">\n"
           "        <Journal>\n          <ISSN IssnType=\"Electronic\">");
    put_u64_fixed(o, pick(10000), 4);
    PUT(o, "-");
    put_u64_fixed(o, pick(10000), 4);
    PUT(o, "</ISSN>\n          <Title>");
    put_phrase(o, &dump_pool, 50);
    PUT(o, "</Title>\n        </Journal>\n        <ArticleTitle>");
    put_phrase(o, &dump_pool, 140);
    PUT(o, ".</ArticleTitle>\n        <Abstract>\n");
    uint32_t parts = range(1, 5);
    for (uint32_t i = 0; i < parts; i++) {
        const char *label = abstract_labels[i % COUNT(abstract_labels)];
        PUT(o, "          <AbstractText Label=\"");
        put_str(o, label);
        PUT(o, "\" NlmCategory=\"");
        put_str(o, label);
        PUT(o, "\">");
        uint32_t n = range(1, 5);
        for (uint32_t s = 0; s < n; s++) put_sentence(o, &dump_pool);
        PUT(o, "</AbstractText>\n");
    }
    PUT(o, "        </Abstract>\n        <AuthorList CompleteYN=\"Y\">\n");
    uint32_t authors = range(1, 8);
    for (uint32_t i = 0; i < authors; i++) {
        const char *given = PICK(given_names);
        PUT(o, "          <Author ValidYN=\"Y\">\n            <LastName>");
        put_str(o, PICK(family_names));
        PUT(o, "</LastName>\n            <ForeName>");
        put_str(o, given);
        PUT(o, "</ForeName>\n            <Initials>");
        put(o, given, given[0] & 0x80 ? 2 : 1); /* first character (2-byte letters here) */
        PUT(o, "</Initials>\n");
        if (chance(60)) {
            PUT(o, "            <AffiliationInfo>\n              <Affiliation>");
            put_str(o, PICK(departments));
            PUT(o, ", ");
            put_str(o, PICK(cities));
            PUT(o, ".</Affiliation>\n            </AffiliationInfo>\n");
        }
        PUT(o, "          </Author>\n");
    }
    PUT(o, "        </AuthorList>\n        <Language>eng</Language>\n      </Article>\n"
           "      <MeshHeadingList>\n");
    uint32_t headings = range(2, 8);
    for (uint32_t i = 0; i < headings; i++) {
        PUT(o, "        <MeshHeading>\n          <DescriptorName UI=\"D");
        put_u64_fixed(o, pick(1000000), 6);
        if (chance(25))
            PUT(o, "\" MajorTopicYN=\"Y\">");
        else
            PUT(o, "\" MajorTopicYN=\"N\">");
        put_str(o, PICK(mesh));
        PUT(o, "</DescriptorName>\n        </MeshHeading>\n");
    }
    PUT(o, "      </MeshHeadingList>\n    </MedlineCitation>\n  </PubmedArticle>");
}

static void put_osm_meta(out *o) {
    PUT(o, " version=\"");
    put_u64(o, range(1, 12));
    PUT(o, "\" timestamp=\"");
    put_timestamp(o);
    PUT(o, "\" changeset=\"");
    put_u64(o, pick(100000000));
    PUT(o, "\" uid=\"");
    put_u64(o, pick(10000000));
    PUT(o, "\" user=\"");
    put_str(o, PICK(given_names));
    PUT(o, "\"");
}

static void put_osm_tags(out *o, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        PUT(o, "\n    <tag k=\"");
        put_str(o, PICK(osm_keys));
        PUT(o, "\" v=\"");
        if (chance(15))
            put_phrase(o, &dump_pool, 40);
        else
            put_str(o, PICK(osm_values));
        PUT(o, "\"/>");
    }
}

/* A map node's start tag up to its id, lat and lon attributes. */
static void put_node_start(out *o) {
    PUT(o, "\n  <node id=\"");
    put_u64(o, next_id++);
    PUT(o, "\" lat=\"");
    put_coord(o, 90);
    PUT(o, "\" lon=\"");
    put_coord(o, 180);
    PUT(o, "\"");
}

/* Map data: runs of attribute-heavy nodes (most empty), then a way. */
static void emit_map(out *o) {
    uint32_t nodes = range(4, 30);
    uint64_t first = next_id;
    for (uint32_t i = 0; i < nodes; i++) {
        put_node_start(o);
        put_osm_meta(o);
        if (chance(25)) {
            PUT(o, ">");
            put_osm_tags(o, range(1, 4));
            PUT(o, "\n  </node>");
        } else {
            PUT(o, "/>");
        }
    }
    PUT(o, "\n  <way id=\"");
    put_u64(o, next_id++);
    PUT(o, "\"");
    put_osm_meta(o);
    PUT(o, ">");
    for (uint32_t i = 0; i < nodes; i++) {
        PUT(o, "\n    <nd ref=\"");
        put_u64(o, first + i);
        PUT(o, "\"/>");
    }
    put_osm_tags(o, range(1, 5));
    PUT(o, "\n  </way>");
}

/* ---------------------------------------------------------------- shapes */

/* Each shape below stresses one thing a reader does; the generated document
 * above mixes them. */

/* record: a database dump, many small elements with short text. */
static const char *const products[] = {
    "USB-C cable 2 m", "Desk lamp", "Notebook A5", "Coffee beans 1 kg", "Running shoes",
    "Water bottle", "Headphones", "Backpack 30 l", "Phone case", "Tea sampler", "Wall clock",
    "Garden hose 25 m", "Yoga mat", "Board game", "Paperback novel", "Screwdriver set",
};
static const char *const statuses[] = {
    "pending", "paid", "shipped", "delivered", "returned", "cancelled",
};

static void emit_row(out *o) {
    PUT(o, "\n  <row>\n    <id>");
    put_u64(o, next_id++);
    PUT(o, "</id>\n    <customer>");
    put_person(o);
    PUT(o, "</customer>\n    <email>user");
    put_u64(o, pick(1000000));
    PUT(o, "@example.com</email>\n    <city>");
    put_str(o, PICK(cities));
    PUT(o, "</city>\n    <product>");
    put_str(o, PICK(products));
    PUT(o, "</product>\n    <quantity>");
    put_u64(o, range(1, 20));
    PUT(o, "</quantity>\n    <price>");
    put_u64(o, pick(1000));
    PUT(o, ".");
    put_u64_fixed(o, pick(100), 2);
    PUT(o, "</price>\n    <status>");
    put_str(o, PICK(statuses));
    PUT(o, "</status>\n    <created>");
    put_timestamp(o);
    PUT(o, "</created>\n");
    if (chance(30)) {
        PUT(o, "    <note>");
        put_phrase(o, &plain_pool, 60);
        PUT(o, "</note>\n");
    }
    PUT(o, "  </row>");
}

/* attrs: map nodes, empty elements with 6 to 14 short attributes: id, lat
 * and lon, then 3 to 11 of the optional ones in random order. */
static const char *const sources[] = {"survey", "Bing", "gps", "local knowledge", "import"};
enum { N_OPTIONAL_ATTRS = 11 };

static void put_optional_attr(out *o, uint32_t which) {
    switch (which) {
    case 0: PUT(o, " version=\""); put_u64(o, range(1, 12)); break;
    case 1: PUT(o, " timestamp=\""); put_timestamp(o); break;
    case 2: PUT(o, " changeset=\""); put_u64(o, pick(100000000)); break;
    case 3: PUT(o, " uid=\""); put_u64(o, pick(10000000)); break;
    case 4: PUT(o, " user=\""); put_str(o, PICK(given_names)); break;
    case 5: put_str(o, chance(95) ? " visible=\"true" : " visible=\"false"); break;
    case 6: PUT(o, " source=\""); put_str(o, PICK(sources)); break;
    case 7: PUT(o, " ele=\""); put_u64(o, pick(4000)); break;
    case 8: PUT(o, " layer=\""); put_u64(o, pick(5)); break;
    case 9: PUT(o, " accuracy=\""); put_u64(o, range(1, 50)); PUT(o, ".0"); break;
    default: PUT(o, " ref=\"A"); put_u64(o, pick(1000)); break;
    }
    PUT(o, "\"");
}

static void emit_node(out *o) {
    put_node_start(o);
    uint8_t order[N_OPTIONAL_ATTRS];
    for (uint32_t i = 0; i < N_OPTIONAL_ATTRS; i++) order[i] = (uint8_t)i;
    uint32_t n = range(3, N_OPTIONAL_ATTRS);
    for (uint32_t i = 0; i < n; i++) { /* a partial shuffle: no name twice */
        uint32_t j = i + pick(N_OPTIONAL_ATTRS - i);
        uint8_t t = order[i];
        order[i] = order[j];
        order[j] = t;
        put_optional_attr(o, order[i]);
    }
    PUT(o, "/>");
}

/* text and nonascii: sections of a title and long paragraphs of prose. */
static void put_prose(out *o, const char *element, const pool *p) {
    PUT(o, "\n  <");
    put_str(o, element);
    PUT(o, " id=\"");
    put_u64(o, next_id++);
    PUT(o, "\">\n    <title>");
    put_phrase(o, p, 60);
    PUT(o, "</title>");
    uint32_t paragraphs = range(2, 5);
    for (uint32_t i = 0; i < paragraphs; i++) {
        PUT(o, "\n    <p>");
        uint32_t n = range(4, 16);
        for (uint32_t s = 0; s < n; s++) put_sentence(o, p);
        PUT(o, "</p>");
    }
    PUT(o, "\n  </");
    put_str(o, element);
    PUT(o, ">");
}

static void emit_section(out *o) { put_prose(o, "section", &plain_pool); }

static void emit_doc(out *o) { put_prose(o, "doc", &intl_pool); }

/* deep: down to a depth of 50 to 200, back up part of the way, down again
 * (3 to 7 descents), then all the way up; no indentation, a short text at each
 * turn, an attribute on one element in five. */
enum { DEEP_MIN = 50, DEEP_MAX = 200 };
static const char *const deep_names[] = {
    "div", "section", "node", "item", "group", "level", "part", "entry", "block", "list", "e", "x",
};

static void emit_tree(out *o) {
    uint8_t stack[DEEP_MAX];
    uint32_t depth = 0;
    uint32_t turns = range(2, 6);
    PUT(o, "\n");
    for (uint32_t t = 0;; t++) {
        uint32_t bottom = range(DEEP_MIN, DEEP_MAX);
        while (depth < bottom) {
            uint8_t k = (uint8_t)pick((uint32_t)COUNT(deep_names));
            stack[depth++] = k;
            PUT(o, "<");
            put_str(o, deep_names[k]);
            if (chance(20)) {
                PUT(o, " n=\"");
                put_u64(o, depth);
                PUT(o, "\"");
            }
            PUT(o, ">");
        }
        put_phrase(o, &plain_pool, 30);
        uint32_t top = t == turns ? 0 : pick(depth);
        while (depth > top) {
            PUT(o, "</");
            put_str(o, deep_names[stack[--depth]]);
            PUT(o, ">");
        }
        if (t == turns) break;
    }
}

/* mixed: XHTML-like sections, paragraphs of text with inline elements. */
static void put_inline(out *o) {
    switch (pick(6)) {
    case 0: PUT(o, "<b>"); put_phrase(o, &plain_pool, 24); PUT(o, "</b>"); break;
    case 1: PUT(o, "<i>"); put_phrase(o, &plain_pool, 24); PUT(o, "</i>"); break;
    case 2: PUT(o, "<em>"); put_phrase(o, &plain_pool, 24); PUT(o, "</em>"); break;
    case 3: PUT(o, "<code>"); put_str(o, PICK(words)); PUT(o, "()</code>"); break;
    case 4: PUT(o, "<b><i>"); put_phrase(o, &plain_pool, 16); PUT(o, "</i></b>"); break;
    default:
        PUT(o, "<a href=\"https://example.org/wiki/Page_");
        put_u64(o, pick(100000));
        PUT(o, "?lang=en&amp;rev=");
        put_u64(o, pick(1000));
        PUT(o, "\">");
        put_phrase(o, &plain_pool, 30);
        PUT(o, "</a>");
        break;
    }
}

static void put_mixed_text(out *o, uint32_t pieces) {
    for (uint32_t i = 0; i < pieces; i++) {
        put_phrase(o, &plain_pool, range(20, 120));
        PUT(o, " ");
        put_inline(o);
        PUT(o, " ");
    }
    put_sentence(o, &plain_pool);
}

static void emit_article(out *o) {
    PUT(o, "\n<div class=\"section\" id=\"d");
    put_u64(o, next_id++);
    PUT(o, "\">\n<h2>");
    put_phrase(o, &plain_pool, 40);
    PUT(o, "</h2>");
    uint32_t blocks = range(2, 6);
    for (uint32_t b = 0; b < blocks; b++) {
        if (chance(20)) {
            PUT(o, "\n<ul>");
            uint32_t items = range(2, 5);
            for (uint32_t i = 0; i < items; i++) {
                PUT(o, "\n<li>");
                put_mixed_text(o, 1);
                PUT(o, "</li>");
            }
            PUT(o, "\n</ul>");
        } else {
            PUT(o, "\n<p>");
            put_mixed_text(o, range(2, 10));
            PUT(o, "</p>");
        }
    }
    PUT(o, "\n</div>");
}

/* mixed-dump: the generated document, wiki pages, citations and map data. */
static void emit_dump_record(out *o) {
    uint32_t kind = pick(100);
    if (kind < 40)
        emit_page(o);
    else if (kind < 70)
        emit_citation(o);
    else
        emit_map(o);
}

typedef struct shape {
    const char *name;
    const char *about;
    pool *pool;         /* the sentence pool its text comes from, or NULL */
    word_source *words; /* and that pool's words */
    const char *root;   /* the prolog's end and the root's start tag up to its seed="" value */
    const char *footer; /* the root's end tag */
    void (*record)(out *o);
} shape;

static const shape shapes[] = {
    {"mixed-dump", "wiki pages, citations and map data (the default)", &dump_pool, dump_word,
     "<!DOCTYPE dump>\n<dump xmlns=\"urn:stax:bench\" version=\"1.0\" xml:lang=\"en\" seed=\"",
     "\n</dump>\n", emit_dump_record},
    {"record", "a database dump: many small elements with short text", &plain_pool, plain_word,
     "<dataset name=\"orders\" seed=\"", "\n</dataset>\n", emit_row},
    {"attrs", "map nodes: empty elements with 6 to 14 short attributes", NULL, NULL,
     "<osm version=\"0.6\" generator=\"stax bench/gen\" seed=\"", "\n</osm>\n", emit_node},
    {"text", "long paragraphs of ASCII prose, a few &amp; and &lt;", &plain_pool, plain_word,
     "<book seed=\"", "\n</book>\n", emit_section},
    {"deep", "nesting 50 to 200 levels deep, down and up again", &plain_pool, plain_word,
     "<tree seed=\"", "\n</tree>\n", emit_tree},
    {"mixed", "XHTML-like paragraphs: text with <b>, <i>, <a href>", &plain_pool, plain_word,
     "<html xmlns=\"http://www.w3.org/1999/xhtml\" seed=\"", "\n</html>\n", emit_article},
    {"nonascii", "text mostly of 2-, 3- and 4-byte UTF-8: Greek, Cyrillic, CJK, emoji", &intl_pool,
     intl_word, "<corpus seed=\"", "\n</corpus>\n", emit_doc},
};

/* ---------------------------------------------------------------- main */

static void usage(void) {
    fputs("usage: gen [-s SHAPE] SIZE_MIB [SEED]\n"
          "       gen -l\n"
          "  writes exactly SIZE_MIB MiB (fractions allowed) of XML of one shape to stdout;\n"
          "  -l lists the shape names. Shapes:\n",
          stderr);
    for (size_t i = 0; i < COUNT(shapes); i++) fprintf(stderr, "  %-10s  %s\n", shapes[i].name, shapes[i].about);
    exit(2);
}

int main(int argc, char **argv) {
    const shape *sh = &shapes[0];
    if (argc == 2 && strcmp(argv[1], "-l") == 0) {
        for (size_t i = 0; i < COUNT(shapes); i++) puts(shapes[i].name);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "-s") == 0) {
        sh = NULL;
        for (size_t i = 0; i < COUNT(shapes); i++)
            if (strcmp(argv[2], shapes[i].name) == 0) sh = &shapes[i];
        if (!sh) {
            fprintf(stderr, "gen: no shape '%s'\n", argv[2]);
            usage();
        }
        argc -= 2;
        argv += 2;
    }
    if (argc < 2 || argc > 3) usage();
    char *end;
    errno = 0;
    double mib = strtod(argv[1], &end);
    if (errno || end == argv[1] || *end || !(mib > 0) || mib > 1048576.0) usage();
    uint64_t target = (uint64_t)(mib * 1048576.0 + 0.5);
    uint64_t seed = 1;
    if (argc == 3) {
        errno = 0;
        seed = strtoull(argv[2], &end, 10);
        if (errno || end == argv[2] || *end) usage();
    }
    rng = seed * 0x2545F4914F6CDD1Du + 0x1234567u;

    out o = {malloc(OUT_CAP), 0, 0};
    if (!o.buf) {
        fputs("gen: out of memory\n", stderr);
        return 2;
    }
    if (sh->pool) build_pool(sh->pool, sh->words);
#ifdef F_SETPIPE_SZ
    /* A 1 MiB pipe halves the context switches of `gen | consumer`. Best
     * effort: fails harmlessly when stdout is not a pipe. */
    (void)fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
#endif

    PUT(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<!-- stax benchmark document: bench/gen ");
    if (sh != &shapes[0]) {
        PUT(&o, "-s ");
        put_str(&o, sh->name);
        PUT(&o, " ");
    }
    put_str(&o, argv[1]);
    PUT(&o, " ");
    put_u64(&o, seed);
    PUT(&o, " -->\n");
    put_str(&o, sh->root);
    put_u64(&o, seed);
    PUT(&o, "\">");
    size_t footer_len = strlen(sh->footer);
    if (o.len + footer_len > target) {
        fprintf(stderr, "gen: SIZE_MIB too small (at least %zu bytes)\n", o.len + footer_len);
        return 2;
    }

    /* Records until the next one would not fit; the one that did not fit is
     * taken back (records are never split by a flush), and a comment pads the
     * output to the exact size. */
    for (;;) {
        size_t mark = o.len;
        sh->record(&o);
        if (o.len - mark > MAX_RECORD) {
            fputs("gen: internal error: record longer than MAX_RECORD\n", stderr);
            return 2;
        }
        if (o.flushed + o.len + footer_len > target) {
            o.len = mark;
            break;
        }
        if (o.len >= OUT_FLUSH) out_flush(&o);
    }
    uint64_t pad = target - (o.flushed + o.len) - footer_len;
    if (pad >= 8) {
        PUT(&o, "\n<!--");
        pad -= 8;
        memset(o.buf + o.len, '.', pad);
        o.len += pad;
        PUT(&o, "-->");
    } else {
        memset(o.buf + o.len, '\n', pad);
        o.len += pad;
    }
    put(&o, sh->footer, footer_len);
    out_flush(&o);
    free(o.buf);
    if (sh->pool) free(sh->pool->arena);
    return 0;
}
