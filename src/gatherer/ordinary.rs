//! The crawl's ordinary pages: stored with their text, their links
//! followed (menus last), their main content kept once the crawl is over.

use std::collections::HashMap;

use url::Url;

use super::frontier::Crawl;
use super::{page_record, GatherError, Gathering};
use crate::boilerplate::Method;
use crate::fetch::Response;
use crate::links::LinkKind;
use crate::page::Page;
use crate::source::Start;
use crate::store::{SourceInfo, SourceKind};

impl Gathering<'_> {
    /// Queues an ordinary page's links: content and pagination links
    /// first, menu links after them ([`crate::links`]). The page's groups
    /// are checked against the pages crawled before; the groups of those
    /// that link to this page are checked again now that it is known, and
    /// the links of a group found a menu wait. A menu recognised once is
    /// recognised on the site's other pages without a check.
    pub(super) fn follow_links(&mut self, url: &Url, page: &Page, crawl: &mut Crawl) {
        let read = self.links.read(url, page);
        for (target, kind) in read.links {
            if kind == LinkKind::Menu {
                crawl.push_later(target);
            } else {
                crawl.push_link(target);
            }
        }
        for target in &read.menu_links {
            crawl.defer(target);
        }
    }

    /// Stores an ordinary page with its whole text; its main content
    /// replaces that once the crawl is over ([`Gathering::keep_main_contents`]).
    pub(super) fn keep_ordinary_page(
        &mut self,
        response: &Response,
        page: &Page,
    ) -> Result<(), GatherError> {
        let info = SourceInfo {
            url: response.url.to_string(),
            kind: SourceKind::Page,
            title: page.title().filter(|t| !t.is_empty()),
            description: page.meta_content("description"),
            keywords: page.meta_content("keywords"),
            text: Some(page.text()),
        };
        let id = self.store().upsert_source(&info)?;
        self.store().record_page(id, &page_record(response))?;
        self.report.ordinary_pages += 1;
        self.site.add(response.url.clone(), page);
        self.ordinary.push(info);
        Ok(())
    }

    /// Stores every crawled ordinary page's main content as its text, and
    /// as its description where it has none (see [`crate::boilerplate`]):
    /// the method of `--boilerplate`, else the spec's for the page's
    /// origin, else the default.
    pub(super) fn keep_main_contents(
        &mut self,
        by_origin: &HashMap<url::Origin, Method>,
    ) -> Result<(), GatherError> {
        let method_of = |url: &Url| {
            self.options
                .boilerplate
                .or_else(|| by_origin.get(&url.origin()).copied())
                .unwrap_or_default()
        };
        let mut methods: Vec<Method> = Vec::new();
        for info in &self.ordinary {
            if let Ok(url) = Url::parse(&info.url) {
                let m = method_of(&url);
                if !methods.contains(&m) {
                    methods.push(m);
                }
            }
        }
        for method in methods {
            if method == Method::None {
                continue;
            }
            let contents = self.site.main_contents(method);
            for (info, (url, main)) in self.ordinary.iter().zip(contents) {
                if method_of(&url) != method {
                    continue;
                }
                let mut info = info.clone();
                info.description = info.description.or_else(|| main.description());
                info.text = Some(main.text);
                self.store().upsert_source(&info)?;
            }
        }
        Ok(())
    }
}

/// The `boilerplate` the specs name, by the origin of their form page.
pub(super) fn boilerplate_by_origin(starts: &[Start]) -> HashMap<url::Origin, Method> {
    starts
        .iter()
        .filter_map(|start| match start {
            Start::Spec { spec, .. } => {
                let method = spec.boilerplate?;
                Some((Url::parse(&spec.url).ok()?.origin(), method))
            }
            Start::Url(_) => None,
        })
        .collect()
}
