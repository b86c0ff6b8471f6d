"""The anchor of `gather bench pages --scrapy PYTHON`: a Scrapy spider that
gathers the demo's paged hotel guide (`/paged/`) as gather does.

The same queries: one per region of the form (the form's other fields as a
browser sends them); the same pages: each query's own page, then the next
one its pager links ("weiter") until the last. The same values:
per result page the towns (the cells in #FF8000) and the hotel names (the
bold text of the rows with a `hotel_id` checkbox), with lxml and XPath.

Run it on its own with the demo site up (`gather demo --serve`):

    python -m scrapy runspider benches/scrapy/paged.py -a start=http://127.0.0.1:8642/paged/

It prints one JSON line on standard output: result pages, values, towns and
names seen, and its peak memory (VmHWM, as gather reports its own).
"""

import json
import sys

import scrapy


class PagedGuide(scrapy.Spider):
    name = "paged_guide"
    custom_settings = {
        "LOG_LEVEL": "ERROR",
        "ROBOTSTXT_OBEY": True,
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "HTTPCACHE_ENABLED": False,
    }

    def __init__(self, start, **kwargs):
        super().__init__(**kwargs)
        self.start_urls = [start]
        self.result_pages = 0
        self.values = 0
        self.towns = set()
        self.names = set()

    def parse(self, response):
        form = response.xpath("//form")[0]
        for region in form.xpath(".//input[@name='region']/@value").getall():
            yield scrapy.FormRequest.from_response(
                response,
                formxpath="//form",
                formdata={"region": region},
                callback=self.results,
                dont_click=True,
            )

    def results(self, response):
        self.result_pages += 1
        table = response.xpath("(//body//table)[2]")
        towns = table.xpath(".//tr/td[2][font/@color='#FF8000']//text()").getall()
        names = table.xpath(
            ".//tr[td[1]/small/input/@name='hotel_id']/td[2]/b//text()"
        ).getall()
        for town in towns:
            self.towns.add(town.strip())
        for name in names:
            self.names.add(name.strip())
        self.values += len(towns) + len(names)
        # The next page, as Scrapy's tutorial follows pages: one request
        # per page (following every page number of the pager instead makes
        # Scrapy build and filter out as many requests as the pager has
        # links, on every page).
        for href in response.xpath(
            "//p[@align='center']/a[contains(., 'weiter')]/@href"
        ).getall():
            yield response.follow(href, callback=self.results)

    def closed(self, reason):
        peak = 0
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    peak = int(line.split()[1]) * 1024
        json.dump(
            {
                "pages": self.result_pages,
                "values": self.values,
                "towns": len(self.towns),
                "names": len(self.names),
                "peak_rss_bytes": peak,
                "reason": reason,
            },
            sys.stdout,
        )
        sys.stdout.write("\n")
        sys.stdout.flush()
