//! The main job's pages in a real browser: `zonelab reproduce all` at reduced scale,
//! then Debian's chromium (headless) loads `index.html` and every report it links
//! to. Checks: the index renders with a row per claim and per target, every link
//! resolves, every SVG of every report has data.
//!
//! chromium comes from `scripts/install-chromium.sh` (run by `scripts/test.sh`).
//! Without it the test fails and says how to install it; set
//! `ZONELAB_SKIP_BROWSER=1` to skip it deliberately.

mod common;

use common::{stderr, stdout, zonelab};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The palette of `report/svg_plot.rs`: what data marks are drawn in.
const PALETTE: [&str; 6] = [
    "#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B",
];

fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"].iter().find_map(|name| {
        let ok = Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then(|| PathBuf::from(name))
    })
}

/// The DOM of `page` after chromium loaded it (`--dump-dom`).
fn dump_dom(browser: &Path, profile: &Path, page: &Path) -> String {
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let o = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            &format!("--user-data-dir={}", profile.display()),
            "--dump-dom",
            &url,
        ])
        .output()
        .expect("chromium runs");
    assert!(o.status.success(), "chromium on {url}: {}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Values of `attr="..."` in `html`, in order.
fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let key = format!("{attr}=\"");
    html.match_indices(&key)
        .filter_map(|(at, _)| {
            let rest = &html[at + key.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

/// The `<svg>...</svg>` elements of `html`.
fn svgs(html: &str) -> Vec<&str> {
    html.match_indices("<svg")
        .map(|(at, _)| {
            let end = html[at..].find("</svg>").expect("closed svg") + at;
            &html[at..end]
        })
        .collect()
}

/// Asserts that an SVG plots data: it says it holds points, and it draws more
/// palette-coloured marks than its legend has entries.
fn assert_svg_has_data(svg: &str, page: &Path) {
    let series: usize = attr_values(svg, "data-series")[0].parse().unwrap();
    let points: usize = attr_values(svg, "data-points")[0].parse().unwrap();
    let id = attr_values(svg, "id").first().copied().unwrap_or("?");
    assert!(
        points > 0,
        "{}: svg {id} has no data points",
        page.display()
    );
    let upper = svg.to_ascii_uppercase();
    let marks = PALETTE
        .iter()
        .map(|c| {
            upper.matches(&format!("FILL=\"{c}\"")).count()
                + upper.matches(&format!("STROKE=\"{c}\"")).count()
        })
        .sum::<usize>();
    assert!(
        marks > series,
        "{}: svg with {series} series draws only {marks} data marks",
        page.display()
    );
}

#[test]
fn the_main_job_pages_render_link_and_plot_in_a_browser() {
    if std::env::var("ZONELAB_SKIP_BROWSER").as_deref() == Ok("1") {
        eprintln!("skipped: ZONELAB_SKIP_BROWSER=1");
        return;
    }
    let browser = chromium().expect(
        "chromium is not installed: run `bash scripts/install-chromium.sh` (scripts/test.sh does), or set ZONELAB_SKIP_BROWSER=1",
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    // The smallest scale: every target is clamped to its own minimum.
    let o = zonelab(&[
        "reproduce",
        "all",
        "--scale",
        "0.001",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let profile = dir.path().join("chromium-profile");
    let index = out.join("index.html");
    let dom = dump_dom(&browser, &profile, &index);
    assert!(
        dom.contains("<title>ZoneLab: every paper's claims</title>"),
        "{dom}"
    );

    // One claims row per claim of every results.json, one target row per target.
    let mut claims = 0;
    let targets: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("results.json").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let listed = stdout(&zonelab(&["reproduce", "--list"]));
    let expected = listed
        .lines()
        .skip(2)
        .filter(|l| !l.trim().is_empty())
        .count();
    assert!(
        expected >= 7,
        "reproduce --list names too few targets:\n{listed}"
    );
    assert_eq!(targets.len(), expected, "{targets:?} vs\n{listed}");
    for t in &targets {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join(t).join("results.json")).unwrap())
                .unwrap();
        claims += v["claims"].as_array().unwrap().len();
        assert!(
            dom.contains(&format!("<code>{t}</code>")),
            "{t} not in the index"
        );
    }
    let table = &dom[dom.find("id=\"claims\"").unwrap()..];
    let verdicts = table.matches(">holds</td>").count() + table.matches(">misses</td>").count();
    assert_eq!(verdicts, claims, "claims rows");
    // Claims judged on medians (mios over seeds, hhzs over loads) show their draws.
    assert!(
        table.contains("<small title=\"draws: "),
        "no draw ranges in the index"
    );

    // Every link resolves: reports load in the browser (and are checked in turn),
    // other files exist and are not empty.
    let mut reports = 0;
    let mut pages = vec![index.clone()];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(page) = pages.pop() {
        let html = if page == index {
            dom.clone()
        } else {
            dump_dom(&browser, &profile, &page)
        };
        assert!(
            html.contains("<title>"),
            "{} did not render",
            page.display()
        );
        for svg in svgs(&html) {
            assert_svg_has_data(svg, &page);
        }
        for href in attr_values(&html, "href") {
            assert!(
                !href.contains("://"),
                "{}: external link {href}",
                page.display()
            );
            let target = page.parent().unwrap().join(href.split('#').next().unwrap());
            assert!(
                target.is_file() && std::fs::metadata(&target).unwrap().len() > 0,
                "{}: link {href} does not resolve",
                page.display()
            );
            if href.ends_with(".html") && seen.insert(target.clone()) {
                reports += 1;
                pages.push(target);
            }
        }
    }
    assert_eq!(reports, targets.len(), "one report per target");
}
