//! The provider's world: the holiday regions of Mecklenburg-Vorpommern, their
//! towns, and the words hotel names are made of.
//!
//! Town data are real (postcode and dialling code of the place); the weights say
//! roughly how many of the guide's hotels sit in a town (Binz has many, Thiessow
//! few).

/// A holiday region with its towns and the words local hotels like to be named after.
pub(crate) struct Region {
    pub name: &'static str,
    /// On the Baltic coast (strand hotels exist there).
    pub coastal: bool,
    pub towns: &'static [Town],
    pub local_names: &'static [&'static str],
}

/// A town of a region.
pub(crate) struct Town {
    pub name: &'static str,
    pub plz: &'static str,
    pub vorwahl: &'static str,
    pub weight: u32,
}

const fn town(name: &'static str, plz: &'static str, vorwahl: &'static str, weight: u32) -> Town {
    Town {
        name,
        plz,
        vorwahl,
        weight,
    }
}

pub(crate) const REGIONS: &[Region] = &[
    Region {
        name: "Fischland-Darß-Zingst",
        coastal: true,
        towns: &[
            town("Ahrenshoop", "18347", "038220", 3),
            town("Wustrow", "18347", "038220", 2),
            town("Dierhagen", "18347", "038226", 2),
            town("Born a. Darß", "18375", "038234", 1),
            town("Wieck a. Darß", "18375", "038233", 1),
            town("Prerow", "18375", "038233", 3),
            town("Zingst", "18374", "038232", 4),
        ],
        local_names: &[
            "Fischland",
            "Darß",
            "Boddenblick",
            "Kapitänshaus",
            "Zum Zeesboot",
        ],
    },
    Region {
        name: "Rügen",
        coastal: true,
        towns: &[
            town("Binz", "18609", "038393", 8),
            town("Sellin", "18586", "038303", 5),
            town("Göhren", "18586", "038308", 4),
            town("Baabe", "18586", "038303", 3),
            town("Thiessow", "18586", "038308", 1),
            town("Sassnitz", "18546", "038392", 3),
            town("Bergen auf Rügen", "18528", "03838", 2),
            town("Putbus", "18581", "038301", 2),
            town("Glowe", "18551", "038302", 2),
            town("Breege", "18556", "038391", 1),
        ],
        local_names: &[
            "Rügen",
            "Kreidefelsen",
            "Jasmund",
            "Granitz",
            "Rügenblick",
            "Mönchgut",
        ],
    },
    Region {
        name: "Usedom",
        coastal: true,
        towns: &[
            town("Heringsdorf", "17424", "038378", 6),
            town("Ahlbeck", "17419", "038378", 5),
            town("Bansin", "17429", "038378", 4),
            town("Zinnowitz", "17454", "038377", 4),
            town("Koserow", "17459", "038375", 2),
            town("Ückeritz", "17459", "038375", 1),
            town("Trassenheide", "17449", "038371", 2),
            town("Karlshagen", "17449", "038371", 2),
            town("Usedom", "17406", "038372", 1),
        ],
        local_names: &[
            "Usedom",
            "Achterwasser",
            "Haffblick",
            "Kaiserbad",
            "Bernsteinbad",
        ],
    },
    Region {
        name: "Mecklenburgische Seenplatte",
        coastal: false,
        towns: &[
            town("Waren (Müritz)", "17192", "03991", 5),
            town("Röbel/Müritz", "17207", "039931", 2),
            town("Plau am See", "19395", "038735", 2),
            town("Malchow", "17213", "039932", 2),
            town("Neustrelitz", "17235", "03981", 2),
            town("Mirow", "17252", "039833", 1),
            town("Feldberg", "17258", "039831", 1),
            town("Neubrandenburg", "17033", "0395", 2),
        ],
        local_names: &[
            "Müritz",
            "Müritzblick",
            "Am See",
            "Seenland",
            "Zum Fischerhof",
        ],
    },
    Region {
        name: "Mecklenburgische Schweiz",
        coastal: false,
        towns: &[
            town("Güstrow", "18273", "03843", 2),
            town("Teterow", "17166", "03996", 1),
            town("Malchin", "17139", "03994", 1),
            town("Krakow am See", "18292", "038457", 1),
        ],
        local_names: &[
            "Schweizer Haus",
            "Am Malchiner See",
            "Burg Schlitz",
            "Heidberg",
        ],
    },
    Region {
        name: "Rostock und Umgebung",
        coastal: true,
        towns: &[
            town("Rostock", "18055", "0381", 4),
            town("Warnemünde", "18119", "0381", 5),
            town("Kühlungsborn", "18225", "038293", 6),
            town("Bad Doberan", "18209", "038203", 2),
            town("Heiligendamm", "18209", "038203", 1),
            town("Graal-Müritz", "18181", "038206", 3),
            town("Rerik", "18230", "038296", 2),
        ],
        local_names: &[
            "Hanse",
            "Warnowblick",
            "Alter Strom",
            "Zum Leuchtturm",
            "Kühlung",
        ],
    },
    Region {
        name: "Westmecklenburg",
        coastal: true,
        towns: &[
            town("Wismar", "23966", "03841", 3),
            town("Boltenhagen", "23946", "038825", 4),
            town("Insel Poel", "23999", "038425", 2),
            town("Schwerin", "19053", "0385", 3),
            town("Grevesmühlen", "23936", "03881", 1),
            town("Ludwigslust", "19288", "03874", 1),
        ],
        local_names: &[
            "Klützer Winkel",
            "Schloßblick",
            "Alter Schwede",
            "Tarnewitz",
        ],
    },
    Region {
        name: "Vorpommern",
        coastal: true,
        towns: &[
            town("Stralsund", "18439", "03831", 4),
            town("Greifswald", "17489", "03834", 3),
            town("Barth", "18356", "038231", 1),
            town("Wolgast", "17438", "03836", 1),
            town("Lubmin", "17509", "038354", 1),
            town("Anklam", "17389", "03971", 1),
            town("Ueckermünde", "17373", "039771", 2),
        ],
        local_names: &["Pommern", "Zum Greif", "Peenetal", "Am Haff", "Sundblick"],
    },
];

/// A kind of house: the first word of its name and its price range (DM per night).
pub(crate) struct Kind {
    pub word: &'static str,
    pub weight: u32,
    pub price: (u32, u32),
    pub coastal_only: bool,
}

const fn kind(word: &'static str, weight: u32, price: (u32, u32), coastal_only: bool) -> Kind {
    Kind {
        word,
        weight,
        price,
        coastal_only,
    }
}

pub(crate) const KINDS: &[Kind] = &[
    kind("Hotel", 30, (70, 180), false),
    kind("Pension", 25, (35, 90), false),
    kind("Strandhotel", 8, (110, 260), true),
    kind("Gasthof", 8, (45, 95), false),
    kind("Landgasthof", 4, (50, 100), false),
    kind("Ferienhotel", 5, (80, 160), false),
    kind("Hotel garni", 5, (60, 120), false),
    kind("Gästehaus", 6, (35, 80), false),
    kind("Haus", 5, (40, 85), false),
    kind("Villa", 4, (90, 200), true),
    kind("Kurhotel", 2, (120, 240), true),
    kind("Seehotel", 3, (100, 220), false),
    kind("Motel", 1, (50, 80), false),
];

/// Words every region's hotels are named after.
pub(crate) const COMMON_NAMES: &[&str] = &[
    "Seeblick",
    "Möwe",
    "Zur Linde",
    "Zum Anker",
    "Ostseeperle",
    "Bernstein",
    "Strandperle",
    "Seestern",
    "Nordlicht",
    "Sonnenhof",
    "Kranich",
    "Zur Post",
    "Am Markt",
    "Am Hafen",
    "Fährhaus",
    "Waldesruh",
    "Schwanenhof",
    "Lindenhof",
    "Zur Mühle",
    "Störtebeker",
    "Weiße Düne",
    "Dünenblick",
    "Meeresrauschen",
    "Rosengarten",
    "Sanddorn",
    "Strandläufer",
    "Seemöwe",
    "Zum Fischer",
    "Klabautermann",
    "Kiefernhain",
    "Buchenhof",
    "Fischerkate",
    "Reethus",
    "Sonnenschein",
    "Zum Löwen",
    "Schwarzer Adler",
    "Weißes Roß",
    "Grüner Baum",
    "Alte Schmiede",
    "Elisabeth",
    "Luise",
    "Friedrichshof",
];

/// Streets found in every small town of the region.
pub(crate) const STREETS: &[&str] = &[
    "Strandpromenade",
    "Strandstraße",
    "Hauptstraße",
    "Seestraße",
    "Dorfstraße",
    "Am Hafen",
    "Bergstraße",
    "Waldstraße",
    "Kirchstraße",
    "Dünenweg",
    "Schloßstraße",
    "Mühlenweg",
    "Lindenallee",
    "Fischerweg",
    "Bahnhofstraße",
    "Wilhelmstraße",
    "Am Markt",
    "Friedensstraße",
    "Rosenstraße",
    "Ernst-Thälmann-Straße",
];
